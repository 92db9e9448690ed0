import Foundation
import TestThreads
import Testing
import Transport

private enum Shape: Codable, Equatable {
  case circle(radius: Double)
  case rectangle(Double, Double)
  case point
  indirect case group([Shape], name: String?)
}

private struct Everything: Codable, Equatable {
  var bool = true
  var int = -42
  var int8: Int8 = .min
  var int16: Int16 = .max
  var int32: Int32 = -7
  var int64: Int64 = .min
  var uint: UInt = .max
  var uint8: UInt8 = 255
  var uint16: UInt16 = 1
  var uint32: UInt32 = .max
  var uint64: UInt64 = .max
  var float: Float = -1.5
  var double = Double.pi
  var string = "héllo ✓"
  var empty = ""
  var data = Data([0, 1, 2, 255])
  var optional: Int? = nil
  var present: String? = "here"
  var array = [1, 2, 3]
  var nested = [[1], [], [2, 3]]
  var dictionary = ["a": 1, "b": 2]
  var intKeys = [1: "one", 2: "two"]
  var shapes: [Shape] = [.circle(radius: 1), .rectangle(2, 3), .point, .group([.point], name: nil)]
}

@Suite(.onItsOwnThread) struct CodecTests {
  @Test func roundTripsEveryKindOfValue() throws {
    let value = Everything()
    let bytes = try BinaryEncoder().encode(value)
    #expect(try BinaryDecoder().decode(Everything.self, from: bytes) == value)
    #expect(bytes.count < (try JSONEncoder().encode(value)).count)
  }

  @Test func roundTripsRandomValues() throws {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<500 {
      var value = Everything()
      value.int = .random(in: .min ... .max, using: &generator)
      value.int64 = .random(in: .min ... .max, using: &generator)
      value.uint64 = .random(in: .min ... .max, using: &generator)
      value.double = .random(in: -1e300...1e300, using: &generator)
      value.string = String((0..<Int.random(in: 0...40)).map { _ in Character(Unicode.Scalar(UInt8.random(in: 32...126))) })
      value.array = (0..<Int.random(in: 0...20)).map { _ in .random(in: -1000...1000) }
      value.optional = Bool.random() ? nil : .random(in: 0...10)
      value.shapes = [Bool.random() ? .point : .circle(radius: .random(in: 0...1))]
      let bytes = try BinaryEncoder().encode(value)
      #expect(try BinaryDecoder().decode(Everything.self, from: bytes) == value)
    }
  }

  /// Arrays of primitives are laid out in one buffer, not element by element: the bytes must
  /// be those of the same elements encoded one by one (here through a wrapper that is not a
  /// primitive itself).
  @Test func anArrayOfPrimitivesEncodesAsItsElementsOneByOne() throws {
    struct OneByOne<Value: Codable>: Codable {
      let value: Value
      init(_ value: Value) { self.value = value }
      init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Value.self) }
      func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
      }
    }
    func expectSameBytes<Value: Codable & Equatable & SendableMetatype>(_ values: [Value]) throws {
      let bytes = try BinaryEncoder().encode(values)
      #expect(bytes == (try BinaryEncoder().encode(values.map(OneByOne.init))))
      #expect(try BinaryDecoder().decode([Value].self, from: bytes) == values)
    }
    try expectSameBytes([Int]())
    try expectSameBytes([0, -1, 1, .max, .min, 300])
    try expectSameBytes(["", "héllo ✓", String(repeating: "x", count: 200)])
    try expectSameBytes([true, false])
    try expectSameBytes([-1.5, .pi, .infinity])
    try expectSameBytes([[UInt8](), [0, 255]])
    try expectSameBytes([UInt64.max, 0])
  }

  @Test func aOneFieldChangeEncodesToAFewBytes() throws {
    struct Counter: Codable { var count = 1 }
    #expect(try BinaryEncoder().encode(Counter()).count <= 10)
  }

  @Test func randomAndMutatedBytesNeverCrashTheDecoder() throws {
    let valid = try BinaryEncoder().encode(Everything())
    var generator = SystemRandomNumberGenerator()
    var failures = 0
    for round in 0..<5_000 {
      var bytes = valid
      if round % 2 == 0 {
        bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
      } else {
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
          bytes[Int.random(in: 0..<bytes.count, using: &generator)] = .random(in: 0...255, using: &generator)
        }
        if Bool.random(using: &generator) { bytes.removeLast(Int.random(in: 0..<bytes.count, using: &generator)) }
      }
      do { _ = try BinaryDecoder().decode(Everything.self, from: bytes) } catch is DecodingError { failures += 1 }
    }
    #expect(failures > 4_000)
  }

  @Test func hugeCountsAndDeepNestingAreRefused() throws {
    let hugeCount: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]
    #expect(throws: DecodingError.self) { try BinaryDecoder().decode([Int].self, from: hugeCount) }
    var deep: [UInt8] = []
    for _ in 0..<10_000 { deep = [1] + [UInt8(deep.count & 0x7F)] + deep }
    #expect(throws: DecodingError.self) { try BinaryDecoder().decode(Shape.self, from: deep) }
  }
}
