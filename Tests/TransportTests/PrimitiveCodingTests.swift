import Foundation
import TestThreads
import Testing
import Transport

/// `PrimitiveCoding` writes the bytes `BinaryEncoder` writes and reads them back as
/// `BinaryDecoder` does, refusals included, for every type the codec lays out itself.
@Suite(.onItsOwnThread) struct PrimitiveCodingTests {
  @Test func everyPrimitiveEncodesAsTheCodecAndDecodesBack() throws {
    try agrees([false, true])
    try agrees([Int.min, -1, 0, 63, 64, 300, Int.max])
    try agrees([Int8.min, -1, 0, Int8.max])
    try agrees([Int16.min, -129, 0, Int16.max])
    try agrees([Int32.min, -70_000, 0, Int32.max])
    try agrees([Int64.min, -1, 1 << 40, Int64.max])
    try agrees([UInt.min, 127, 128, UInt.max])
    try agrees([UInt8.min, 128, UInt8.max])
    try agrees([UInt16.min, 300, UInt16.max])
    try agrees([UInt32.min, 70_000, UInt32.max])
    try agrees([UInt64.min, 1 << 63, UInt64.max])
    try agrees([Float(0), -1.5, .greatestFiniteMagnitude, .infinity, -.leastNonzeroMagnitude])
    try agrees([0, Double.pi, -.infinity, .leastNormalMagnitude])
    try agrees(["", "a", "héllo ✓", String(repeating: "x", count: 200)])
    try agrees([Data(), Data([0, 1, 255])])
    try agrees([[UInt8](), [7, 8, 9]])
  }

  @Test func onlyTypesTheCodecLaysOutItselfHaveOne() {
    enum Mode: String, Codable { case idle }
    struct Point: Codable { var x = 0 }
    #expect(PrimitiveCoding(Mode.self) == nil)
    #expect(PrimitiveCoding(Point.self) == nil)
    #expect(PrimitiveCoding(Int?.self) == nil)
    #expect(PrimitiveCoding([Int].self) == nil)
    #expect(PrimitiveCoding(Int.self) != nil)
  }

  @Test func bytesThatAreNotExactlyOneValueAreRefused() throws {
    let int8 = try #require(PrimitiveCoding(Int8.self))
    let uint16 = try #require(PrimitiveCoding(UInt16.self))
    let bool = try #require(PrimitiveCoding(Bool.self))
    let string = try #require(PrimitiveCoding(String.self))
    let double = try #require(PrimitiveCoding(Double.self))
    let wide = try BinaryEncoder().encode(300)
    #expect(throws: DecodingError.self) { _ = try int8.decode(wide) }
    #expect(throws: DecodingError.self) { _ = try uint16.decode(try BinaryEncoder().encode(UInt32(70_000))) }
    #expect(throws: DecodingError.self) { _ = try uint16.decode(wide + [0]) }
    #expect(throws: DecodingError.self) { _ = try uint16.decode([0x80]) }
    #expect(throws: DecodingError.self) { _ = try bool.decode([2]) }
    #expect(throws: DecodingError.self) { _ = try string.decode([2, 0xFF, 0xFE]) }
    #expect(throws: DecodingError.self) { _ = try string.decode([5, 0x61]) }
    #expect(throws: DecodingError.self) { _ = try double.decode([0, 0, 0, 0]) }
  }

  private func agrees<Value: Codable & Equatable>(_ values: [Value]) throws {
    let coding = try #require(PrimitiveCoding(Value.self))
    for value in values {
      let bytes = try BinaryEncoder().encode(value)
      #expect(coding.encode(value) == bytes, "\(Value.self) \(value)")
      #expect(try coding.decode(bytes) == value, "\(Value.self) \(value)")
      #expect(try BinaryDecoder().decode(Value.self, from: coding.encode(value)) == value, "\(Value.self) \(value)")
    }
  }
}
