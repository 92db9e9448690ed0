/// A value that lays out its own bytes with `ByteWriter` and reads them back with
/// `ByteReader`: what the arguments and results of a `SocketActorSystem` call must be, so that
/// a call pays for a few varints, not for `Codable`'s containers.
///
/// ```swift
/// struct Point: WireCodable {
///   var x: Int, y: Int
///   init(from reader: inout ByteReader) throws(TransportError) {
///     x = try reader.readInt()
///     y = try reader.readInt()
///   }
///   func write(to writer: inout ByteWriter) {
///     writer.write(x)
///     writer.write(y)
///   }
/// }
/// ```
package protocol WireCodable: Sendable {
  /// Reads a value that `write(to:)` wrote; throws on bytes that are not one.
  init(from reader: inout ByteReader) throws(TransportError)
  /// Appends the value's bytes.
  func write(to writer: inout ByteWriter)
}

extension Int: WireCodable {
  package init(from reader: inout ByteReader) throws(TransportError) { self = try reader.readInt() }
  package func write(to writer: inout ByteWriter) { writer.write(self) }
}

extension UInt64: WireCodable {
  package init(from reader: inout ByteReader) throws(TransportError) { self = try reader.readUInt64() }
  package func write(to writer: inout ByteWriter) { writer.write(self) }
}

extension Bool: WireCodable {
  package init(from reader: inout ByteReader) throws(TransportError) { self = try reader.readBool() }
  package func write(to writer: inout ByteWriter) { writer.write(self) }
}

extension String: WireCodable {
  package init(from reader: inout ByteReader) throws(TransportError) { self = try reader.readString() }
  package func write(to writer: inout ByteWriter) { writer.write(self) }
}

extension Array: WireCodable where Element: WireCodable {
  package init(from reader: inout ByteReader) throws(TransportError) {
    let count = try reader.readCount()
    self = []
    reserveCapacity(count)
    for _ in 0..<count { append(try Element(from: &reader)) }
  }

  package func write(to writer: inout ByteWriter) {
    writer.write(count)
    for element in self { element.write(to: &writer) }
  }
}

extension Optional: WireCodable where Wrapped: WireCodable {
  package init(from reader: inout ByteReader) throws(TransportError) {
    self = try reader.readBool() ? try Wrapped(from: &reader) : nil
  }

  package func write(to writer: inout ByteWriter) {
    writer.write(self != nil)
    self?.write(to: &writer)
  }
}
