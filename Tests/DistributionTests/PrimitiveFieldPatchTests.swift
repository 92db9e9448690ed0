@testable import BulkheadDistribution
import Foundation
import TestThreads
import Testing
import Transport

/// A field of a type the codec lays out itself patches without the codec (`PrimitiveCoding`):
/// every width, optionals of them and the enums beside them must come out as the new value,
/// in the patch the `Codable` fields make, so that either side may apply it either way.
@Suite(.onItsOwnThread) struct PrimitiveFieldPatchTests {
  struct Widths: Codable, Equatable {
    var bool = false
    var int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint: UInt = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var float: Float = 0
    var double = 0.0
    var string = ""
    var data = Data()
    var bytes: [UInt8] = []
    var maybeInt8: Int8?
    var maybeUInt64: UInt64?
    var maybeDouble: Double?
    var maybeString: String?
    var mode = Mode.idle
    var phase = Phase.first

    // Int raw values: a String-raw enum has no least value, and a nil optional then costs the layout.
    enum Mode: Int, Codable { case idle, busy }
    enum Phase: Codable, Equatable { case first, second(Int16) }
  }

  /// Each edit sets one field to a value whose encoding differs from its neighbours'.
  private static let edits: [(String, @Sendable (inout Widths) -> Void)] = [
    ("bool", { $0.bool = true }),
    ("int", { $0.int = .min }),
    ("int8", { $0.int8 = .min }),
    ("int16", { $0.int16 = .max }),
    ("int32", { $0.int32 = -70_000 }),
    ("int64", { $0.int64 = .max }),
    ("uint", { $0.uint = .max }),
    ("uint8", { $0.uint8 = 200 }),
    ("uint16", { $0.uint16 = .max }),
    ("uint32", { $0.uint32 = .max }),
    ("uint64", { $0.uint64 = .max }),
    ("float", { $0.float = -.greatestFiniteMagnitude }),
    ("double", { $0.double = -.pi }),
    ("string", { $0.string = "héllo ✓" }),
    ("data", { $0.data = Data([0, 255]) }),
    ("bytes", { $0.bytes = [1, 2, 3] }),
    ("maybeInt8", { $0.maybeInt8 = -128 }),
    ("maybeInt8", { $0.maybeInt8 = nil }),
    ("maybeUInt64", { $0.maybeUInt64 = .max }),
    ("maybeUInt64", { $0.maybeUInt64 = 1 }),
    ("maybeDouble", { $0.maybeDouble = .infinity }),
    ("maybeString", { $0.maybeString = "" }),
    ("maybeString", { $0.maybeString = "x" }),
    ("maybeString", { $0.maybeString = nil }),
    ("mode", { $0.mode = .busy }),
    ("phase", { $0.phase = .second(-3) }),
  ]

  @Test func everyWidthOptionalAndEnumPatchesToTheNewValueBothWays() throws {
    let coding = try #require(ValueCoding(Widths.self))
    #expect(StoredLayout.of(Widths.self, sample: Widths()) != nil)
    var old = Widths()
    for (field, edit) in Self.edits {
      var new = old
      edit(&new)
      let patch = try #require(try coding.patch(old, new), "\(field)")
      guard case let .fields(fields) = patch else {
        Issue.record("\(field): \(patch)")
        continue
      }
      #expect(Array(fields.keys) == [field])
      // The patch the capturing path makes, byte for byte: the other side may take either path.
      #expect(try FieldAccess.changes(from: old, to: new, depth: 0) == fields, "\(field)")
      #expect(try coding.apply(patch, old) == new, "\(field): by the layout")
      let decoder = PatchingDecoder(old: try #require(FieldCapture.capture(old)), fields: fields)
      #expect(try Widths(from: decoder) == new, "\(field): through Codable")
      old = new
    }
  }

  @Test func aFieldPatchThatDoesNotFitTheFieldIsRefused() throws {
    let coding = try #require(ValueCoding(Widths.self))
    let tooWide = StatePatch.fields(["int8": .whole(try BinaryEncoder().encode(300))])
    #expect(throws: DecodingError.self) { _ = try coding.apply(tooWide, Widths()) }
    let notAnInteger = StatePatch.fields(["maybeInt8": .whole(try BinaryEncoder().encode("seven"))])
    #expect(throws: DecodingError.self) { _ = try coding.apply(notAnInteger, Widths()) }
  }

  @Test func aRenamedPrimitiveKeyPatchesThroughCodable() throws {
    struct Renamed: Codable, Equatable {
      var count: Int16 = 0
      var label = ""
      enum CodingKeys: String, CodingKey {
        case count = "c"
        case label
      }
    }
    #expect(StoredLayout.of(Renamed.self, sample: Renamed()) == nil)
    let coding = try #require(ValueCoding(Renamed.self))
    let old = Renamed()
    let new = Renamed(count: -300, label: "l")
    let patch = try #require(try coding.patch(old, new))
    #expect(patch == .fields(["c": .whole(try BinaryEncoder().encode(Int16(-300))), "label": .whole(try BinaryEncoder().encode("l"))]))
    #expect(try coding.apply(patch, old) == new)
  }
}
