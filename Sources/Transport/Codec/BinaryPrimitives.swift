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
}

/// A value the codec lays out itself instead of through `Codable` containers. One dynamic
/// cast to this protocol tells the encoder whether a value is primitive.
protocol BinaryPrimitive {
  func write(to output: inout [UInt8])
}

extension Bool: BinaryPrimitive {
  func write(to output: inout [UInt8]) { output.append(self ? 1 : 0) }
}

extension String: BinaryPrimitive {
  func write(to output: inout [UInt8]) {
    var copy = self
    copy.withUTF8 { utf8 in
      VarInt.write(UInt64(utf8.count), to: &output)
      output.append(contentsOf: utf8)
    }
  }
}

extension Int: BinaryPrimitive {}
extension Int8: BinaryPrimitive {}
extension Int16: BinaryPrimitive {}
extension Int32: BinaryPrimitive {}
extension Int64: BinaryPrimitive {}

extension BinaryPrimitive where Self: FixedWidthInteger & SignedInteger {
  func write(to output: inout [UInt8]) { VarInt.write(VarInt.zigzag(Int64(self)), to: &output) }
}

extension UInt: BinaryPrimitive {}
extension UInt8: BinaryPrimitive {}
extension UInt16: BinaryPrimitive {}
extension UInt32: BinaryPrimitive {}
extension UInt64: BinaryPrimitive {}

extension BinaryPrimitive where Self: FixedWidthInteger & UnsignedInteger {
  func write(to output: inout [UInt8]) { VarInt.write(UInt64(self), to: &output) }
}

extension Float: BinaryPrimitive {
  func write(to output: inout [UInt8]) {
    withUnsafeBytes(of: bitPattern.littleEndian) { output.append(contentsOf: $0) }
  }
}

extension Double: BinaryPrimitive {
  func write(to output: inout [UInt8]) {
    withUnsafeBytes(of: bitPattern.littleEndian) { output.append(contentsOf: $0) }
  }
}

extension Data: BinaryPrimitive {
  func write(to output: inout [UInt8]) {
    VarInt.write(UInt64(count), to: &output)
    output.append(contentsOf: self)
  }
}

extension Array: BinaryPrimitive where Element == UInt8 {
  func write(to output: inout [UInt8]) {
    VarInt.write(UInt64(count), to: &output)
    output.append(contentsOf: self)
  }
}
