/// Writes a message field by field, for protocols that lay out their own messages instead of
/// going through `Codable`: varints, and byte strings prefixed by their length.
///
/// ```swift
/// var writer = ByteWriter()
/// writer.write(7)
/// writer.write(bytes: payload)
/// let frame = Frame(kind: 1, payload: writer.bytes)
/// ```
package struct ByteWriter: Sendable {
  package private(set) var bytes: [UInt8] = []

  /// Room for a typical message from the start: growing an empty array there is an
  /// allocation at each doubling, several for every message.
  package init() { bytes.reserveCapacity(64) }

  package mutating func write(_ value: UInt64) { VarInt.write(value, to: &bytes) }

  package mutating func write(_ value: Int) { write(UInt64(bitPattern: Int64(value))) }

  package mutating func write(_ value: Bool) { bytes.append(value ? 1 : 0) }

  package mutating func write(bytes value: [UInt8]) {
    write(UInt64(value.count))
    bytes.append(contentsOf: value)
  }

  package mutating func write(_ value: String) {
    var value = value
    value.withUTF8 { utf8 in
      write(UInt64(utf8.count))
      bytes.append(contentsOf: utf8)
    }
  }
}

/// Reads what a `ByteWriter` wrote, checking every length against the bytes that remain:
/// truncated or garbage input is a `TransportError.malformed`, never a crash.
package struct ByteReader: Sendable {
  private let bytes: [UInt8]
  private var offset = 0

  package init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// Whether every byte has been read.
  package var isAtEnd: Bool { offset == bytes.count }

  package mutating func readUInt64() throws(TransportError) -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard offset < bytes.count else { throw .malformed("a varint runs past the end of the message") }
      guard shift < 64 else { throw .malformed("a varint is longer than 64 bits") }
      let byte = bytes[offset]
      offset += 1
      value |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 { return value }
      shift += 7
    }
  }

  package mutating func readInt() throws(TransportError) -> Int {
    Int(truncatingIfNeeded: Int64(bitPattern: try readUInt64()))
  }

  package mutating func readBool() throws(TransportError) -> Bool {
    guard offset < bytes.count else { throw .malformed("a flag runs past the end of the message") }
    offset += 1
    return bytes[offset - 1] != 0
  }

  package mutating func readBytes() throws(TransportError) -> [UInt8] {
    Array(bytes[try readField()])
  }

  package mutating func readString() throws(TransportError) -> String {
    String(decoding: bytes[try readField()], as: UTF8.self)
  }

  /// Where the next length-prefixed field's bytes are; moves past them.
  private mutating func readField() throws(TransportError) -> Range<Int> {
    let count = try readUInt64()
    guard count <= UInt64(bytes.count - offset) else {
      throw .malformed("a field of \(count) bytes runs past the end of the message")
    }
    defer { offset += Int(count) }
    return offset..<(offset + Int(count))
  }

  /// A count of items that each take at least one byte: never more than the bytes left.
  package mutating func readCount() throws(TransportError) -> Int {
    let count = try readUInt64()
    guard count <= UInt64(bytes.count - offset) else {
      throw .malformed("a count of \(count) is more than the message could hold")
    }
    return Int(count)
  }
}
