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

/// How primitive values are laid out, in both directions.
enum BinaryPrimitives {
  static func write(_ string: String, to output: inout [UInt8]) {
    let utf8 = string.utf8
    VarInt.write(UInt64(utf8.count), to: &output)
    output.append(contentsOf: utf8)
  }

  /// The bytes of `value` if it is a primitive, else nil.
  static func bytes(of value: some Encodable) -> [UInt8]? {
    var output: [UInt8] = []
    switch value {
    case let value as Bool: output.append(value ? 1 : 0)
    case let value as String: write(value, to: &output)
    case let value as Int: VarInt.write(VarInt.zigzag(Int64(value)), to: &output)
    case let value as Int8: VarInt.write(VarInt.zigzag(Int64(value)), to: &output)
    case let value as Int16: VarInt.write(VarInt.zigzag(Int64(value)), to: &output)
    case let value as Int32: VarInt.write(VarInt.zigzag(Int64(value)), to: &output)
    case let value as Int64: VarInt.write(VarInt.zigzag(value), to: &output)
    case let value as UInt: VarInt.write(UInt64(value), to: &output)
    case let value as UInt8: VarInt.write(UInt64(value), to: &output)
    case let value as UInt16: VarInt.write(UInt64(value), to: &output)
    case let value as UInt32: VarInt.write(UInt64(value), to: &output)
    case let value as UInt64: VarInt.write(value, to: &output)
    case let value as Float: appendLittleEndian(UInt64(value.bitPattern), bytes: 4, to: &output)
    case let value as Double: appendLittleEndian(value.bitPattern, bytes: 8, to: &output)
    case let value as Data:
      VarInt.write(UInt64(value.count), to: &output)
      output.append(contentsOf: value)
    case let value as [UInt8]:
      VarInt.write(UInt64(value.count), to: &output)
      output.append(contentsOf: value)
    default: return nil
    }
    return output
  }

  private static func appendLittleEndian(_ value: UInt64, bytes: Int, to output: inout [UInt8]) {
    for index in 0..<bytes { output.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
  }
}
