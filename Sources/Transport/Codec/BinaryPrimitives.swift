import Foundation

/// Variable-length unsigned integers, seven bits a byte, least significant first.
enum VarInt {
  static func write(_ value: UInt64, to output: inout [UInt8]) {
    var value = value
    while value >= 0x80 {
      output.append(UInt8(truncatingIfNeeded: value) | 0x80)
      value >>= 7
    }
    output.append(UInt8(value))
  }

  static func zigzag(_ value: Int64) -> UInt64 {
    UInt64(bitPattern: (value << 1) ^ (value >> 63))
  }

  static func unzigzag(_ value: UInt64) -> Int64 {
    Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
  }

  /// Reads one integer at `position`, within `end`, and moves past it.
  static func read(_ bytes: [UInt8], at position: inout Int, end: Int) throws(PrimitiveMalformation) -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard position < end else { throw PrimitiveMalformation("An integer runs past the end of its value.") }
      guard shift < 64 else { throw PrimitiveMalformation("An integer is longer than 64 bits.") }
      let byte = bytes[position]
      position += 1
      value |= UInt64(byte & 0x7F) << shift
      if byte < 0x80 { return value }
      shift += 7
    }
  }

  /// Reads a length, then that many bytes, within `end`.
  static func delimited(_ bytes: [UInt8], at position: inout Int, end: Int) throws(PrimitiveMalformation) -> Range<Int> {
    let length = try read(bytes, at: &position, end: end)
    guard length <= UInt64(end - position) else {
      throw PrimitiveMalformation("A value claims \(length) bytes but only \(end - position) remain.")
    }
    let range = position..<(position + Int(length))
    position = range.upperBound
    return range
  }

  /// The one integer that is all of `bytes[range]`.
  static func whole(_ bytes: [UInt8], in range: Range<Int>) throws(PrimitiveMalformation) -> UInt64 {
    var position = range.lowerBound
    let value = try read(bytes, at: &position, end: range.upperBound)
    guard position == range.upperBound else { throw PrimitiveMalformation("Bytes follow an integer.") }
    return value
  }
}

/// Why bytes are not the primitive value asked for; the decoder adds where they were.
struct PrimitiveMalformation: Error {
  let message: String

  init(_ message: String) { self.message = message }
}

/// A value the codec lays out itself instead of through `Codable` containers. One dynamic
/// cast to this protocol tells the encoder whether a value is primitive.
protocol BinaryPrimitive: SendableMetatype {
  func write(to output: inout [UInt8])
  /// The value `write` wrote as exactly `bytes[range]`.
  static func read(_ bytes: [UInt8], in range: Range<Int>) throws(PrimitiveMalformation) -> Self
}

extension Bool: BinaryPrimitive {
  func write(to output: inout [UInt8]) { output.append(self ? 1 : 0) }

  static func read(_ bytes: [UInt8], in range: Range<Int>) throws(PrimitiveMalformation) -> Bool {
    guard range.count == 1, bytes[range.lowerBound] <= 1 else { throw PrimitiveMalformation("Not a Bool.") }
    return bytes[range.lowerBound] == 1
  }
}

extension String: BinaryPrimitive {
  func write(to output: inout [UInt8]) {
    var copy = self
    copy.withUTF8 { utf8 in
      VarInt.write(UInt64(utf8.count), to: &output)
      output.append(contentsOf: utf8)
    }
  }

  static func read(_ bytes: [UInt8], in range: Range<Int>) throws(PrimitiveMalformation) -> String {
    var position = range.lowerBound
    let text = try VarInt.delimited(bytes, at: &position, end: range.upperBound)
    guard position == range.upperBound else { throw PrimitiveMalformation("Bytes follow a string.") }
    guard let string = String(validating: bytes[text], as: UTF8.self) else {
      throw PrimitiveMalformation("A string is not valid UTF-8.")
    }
    return string
  }
}

extension Int: BinaryPrimitive {}
extension Int8: BinaryPrimitive {}
extension Int16: BinaryPrimitive {}
extension Int32: BinaryPrimitive {}
extension Int64: BinaryPrimitive {}

extension BinaryPrimitive where Self: FixedWidthInteger & SignedInteger {
  func write(to output: inout [UInt8]) { VarInt.write(VarInt.zigzag(Int64(self)), to: &output) }

  static func read(_ bytes: [UInt8], in range: Range<Int>) throws(PrimitiveMalformation) -> Self {
    let value = VarInt.unzigzag(try VarInt.whole(bytes, in: range))
    guard let result = Self(exactly: value) else { throw PrimitiveMalformation("\(value) does not fit in \(Self.self).") }
    return result
  }
}

extension UInt: BinaryPrimitive {}
extension UInt8: BinaryPrimitive {}
extension UInt16: BinaryPrimitive {}
extension UInt32: BinaryPrimitive {}
extension UInt64: BinaryPrimitive {}

extension BinaryPrimitive where Self: FixedWidthInteger & UnsignedInteger {
  func write(to output: inout [UInt8]) { VarInt.write(UInt64(self), to: &output) }

  static func read(_ bytes: [UInt8], in range: Range<Int>) throws(PrimitiveMalformation) -> Self {
    let value = try VarInt.whole(bytes, in: range)
    guard let result = Self(exactly: value) else { throw PrimitiveMalformation("\(value) does not fit in \(Self.self).") }
    return result
  }
}

extension Float: BinaryPrimitive {
  func write(to output: inout [UInt8]) {
    withUnsafeBytes(of: bitPattern.littleEndian) { output.append(contentsOf: $0) }
  }

  static func read(_ bytes: [UInt8], in range: Range<Int>) throws(PrimitiveMalformation) -> Float {
    Float(bitPattern: UInt32(try littleEndianBits(bytes, in: range, count: 4)))
  }
}

extension Double: BinaryPrimitive {
  func write(to output: inout [UInt8]) {
    withUnsafeBytes(of: bitPattern.littleEndian) { output.append(contentsOf: $0) }
  }

  static func read(_ bytes: [UInt8], in range: Range<Int>) throws(PrimitiveMalformation) -> Double {
    Double(bitPattern: try littleEndianBits(bytes, in: range, count: 8))
  }
}

/// A float's bit pattern, `count` bytes least significant first.
private func littleEndianBits(_ bytes: [UInt8], in range: Range<Int>, count: Int) throws(PrimitiveMalformation) -> UInt64 {
  guard range.count == count else { throw PrimitiveMalformation("A \(count * 8)-bit float has \(range.count) bytes.") }
  return range.reversed().reduce(0) { $0 << 8 | UInt64(bytes[$1]) }
}

extension Data: BinaryPrimitive {
  func write(to output: inout [UInt8]) {
    VarInt.write(UInt64(count), to: &output)
    output.append(contentsOf: self)
  }

  static func read(_ bytes: [UInt8], in range: Range<Int>) throws(PrimitiveMalformation) -> Data {
    Data(bytes[try dataContent(bytes, in: range)])
  }
}

extension Array: BinaryPrimitive where Element == UInt8 {
  func write(to output: inout [UInt8]) {
    VarInt.write(UInt64(count), to: &output)
    output.append(contentsOf: self)
  }

  static func read(_ bytes: [UInt8], in range: Range<Int>) throws(PrimitiveMalformation) -> [UInt8] {
    Array(bytes[try dataContent(bytes, in: range)])
  }
}

/// Where the content of a length-prefixed data value that is all of `bytes[range]` lies.
private func dataContent(_ bytes: [UInt8], in range: Range<Int>) throws(PrimitiveMalformation) -> Range<Int> {
  var position = range.lowerBound
  let content = try VarInt.delimited(bytes, at: &position, end: range.upperBound)
  guard position == range.upperBound else { throw PrimitiveMalformation("Bytes follow a data value.") }
  return content
}
