@testable import Bulkhead
@testable import BulkheadDistribution
import TestThreads
import Testing
import Transport
import TransportTestSupport

@Suite(.onItsOwnThread) struct StatePatchTests {
  struct Form: Codable, Equatable {
    var name = ""
    var tags: [String] = []
    var count = 0
    var note: String?
    var nested = Nested()
    struct Nested: Codable, Equatable { var flag = false; var level = 0 }
  }

  @Test func aPatchTurnsTheOldValueIntoTheNew() throws {
    var generator = SeededGenerator(seed: 7)
    var old = Form()
    for _ in 0..<500 {
      var new = old
      switch Int.random(in: 0..<5, using: &generator) {
      case 0: new.name = "n\(Int.random(in: 0..<9, using: &generator))"
      case 1: new.tags.append("t")
      case 2: new.count += 1
      case 3: new.note = Bool.random(using: &generator) ? nil : "note"
      default: new.nested.level += 1
      }
      let patch = try StatePatch(from: old, to: new)
      #expect(try patch.map { try $0.applied(to: old) } ?? old == new)
      old = new
    }
  }

  @Test func oneFieldChangedInAMegabyteIsAPatchOfAFewBytes() throws {
    struct Big: Codable, Equatable { var items: [Int]; var title: String }
    let old = Big(items: Array(0..<250_000), title: "before")
    var new = old
    new.title = "after"
    #expect(try BinaryEncoder().encode(old).count > 900_000)
    let patch = try #require(try StatePatch(from: old, to: new))
    #expect(patch == .fields(["title": .whole(try BinaryEncoder().encode("after"))]))
    #expect(wireSize(patch) < 40)
    #expect(try patch.applied(to: old) == new)
  }

  @Test func fieldsGoByTheirCodingKeys() throws {
    struct Renamed: Codable, Equatable {
      var value = 0
      var other = "same"
      enum CodingKeys: String, CodingKey { case value = "v", other }
    }
    let patch = try #require(try StatePatch(from: Renamed(), to: Renamed(value: 3)))
    #expect(patch == .fields(["v": .whole(try BinaryEncoder().encode(3))]))
    #expect(try patch.applied(to: Renamed()) == Renamed(value: 3))
  }

  @Test func anOptionalFieldGoesToNilAndBack() throws {
    struct Sheet: Codable, Equatable {
      var title: String?
      var count = 0
    }
    let shown = Sheet(title: "Hi")
    let hidden = Sheet(title: nil)
    let hiding = try #require(try StatePatch(from: shown, to: hidden))
    #expect(hiding == .fields(["title": .removed]))
    #expect(try hiding.applied(to: shown) == hidden)
    let showing = try #require(try StatePatch(from: hidden, to: shown))
    #expect(try showing.applied(to: hidden) == shown)
  }

  @Test func aStateThatIsNotOneKeyedContainerGoesWhole() throws {
    struct Pair: Codable, Equatable {
      var first = 0
      var second = 0
      init(first: Int = 0, second: Int = 0) { (self.first, self.second) = (first, second) }
      init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        first = try container.decode(Int.self)
        second = try container.decode(Int.self)
      }
      func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(first)
        try container.encode(second)
      }
    }
    let patch = try #require(try StatePatch(from: Pair(), to: Pair(first: 1)))
    guard case .whole = patch else { Issue.record("expected a whole patch, got \(patch)"); return }
    #expect(try patch.applied(to: Pair()) == Pair(first: 1))
  }

  @Test func equalStatesNeedNoPatchAndAFieldPatchNeedsABase() throws {
    #expect(try StatePatch(from: Form(), to: Form()) == nil)
    #expect(throws: DistributionError.self) {
      _ = try StatePatch.fields(["count": .whole([2])]).applied(to: Form?.none)
    }
  }

  struct Catalog: Codable, Equatable {
    struct Item: Codable, Equatable, Identifiable {
      var id: Int
      var title: String
      var detail = Detail()
      struct Detail: Codable, Equatable { var stock = 0; var tags: [String] = [] }
    }
    var numbers: [Int]
    var items: IdentifiedArrayOf<Item>
    var profile = Profile()
    var sheet: Profile?
    struct Profile: Codable, Equatable {
      var name = "Blob"
      var address = Address()
      struct Address: Codable, Equatable { var city = "Paris"; var lines: [String] = ["1 rue"] }
    }
  }

  static let large = Catalog(
    numbers: Array(0..<100_000), items: IdentifiedArray((0..<100_000).map { Catalog.Item(id: $0, title: "item \($0)") }))

  /// Appending, removing or changing one element of 100,000 is a patch of at most 64 bytes
  /// plus that element, and applies back to the same value.
  @Test(arguments: ["append", "remove first", "remove middle", "change middle", "change last"])
  func oneElementOfAHundredThousandIsAPatchOfThatElement(change: String) throws {
    let old = Self.large
    var new = old
    switch change {
    case "append":
      new.numbers.append(-1)
      new.items.append(Catalog.Item(id: -1, title: "new"))
    case "remove first":
      new.numbers.removeFirst()
      new.items.remove(at: 0)
    case "remove middle":
      new.numbers.remove(at: 50_000)
      new.items.remove(id: 50_000)
    case "change middle":
      new.numbers[50_000] = -7
      new.items[id: 50_000]?.title = "changed"
    default:
      new.numbers[99_999] = -7
      new.items[id: 99_999]?.detail.stock = 3
    }
    let element = try BinaryEncoder().encode(Catalog.Item(id: -1, title: "changed", detail: .init(stock: 3))).count
    let forward = try #require(try StatePatch(from: old, to: new))
    #expect(wireSize(forward) <= 64 + element + 8, "\(forward)")
    #expect(try forward.applied(to: old) == new)
    let backward = try #require(try StatePatch(from: new, to: old))
    #expect(wireSize(backward) <= 64 + element + 8)
    #expect(try backward.applied(to: new) == old)
  }

  @Test func aChangeDeepInsideANestedStructSendsTheLeaf() throws {
    let old = Catalog(numbers: [], items: [], sheet: Catalog.Profile())
    var new = old
    new.profile.address.city = "Lyon"
    new.sheet?.address.lines.append("2e étage")
    let patch = try #require(try StatePatch(from: old, to: new))
    let city = StatePatch.whole(try BinaryEncoder().encode("Lyon"))
    let line = StatePatch.splice(offset: 1, removing: 0, inserting: [try BinaryEncoder().encode("2e étage")])
    #expect(
      patch
        == .fields([
          "profile": .fields(["address": .fields(["city": city])]),
          "sheet": .fields(["address": .fields(["lines": line])]),
        ]))
    #expect(try patch.applied(to: old) == new)
  }

  @Test func randomEditsOfListsAndNestedStructsPatchBackExactly() throws {
    var generator = SeededGenerator(seed: 11)
    var old = Catalog(numbers: [1, 2, 3], items: [Catalog.Item(id: 0, title: "zero")])
    for step in 0..<600 {
      var new = old
      let id = step + 1
      switch Int.random(in: 0..<8, using: &generator) {
      case 0: new.numbers.insert(step, at: Int.random(in: 0...new.numbers.count, using: &generator))
      case 1: if !new.numbers.isEmpty { new.numbers.remove(at: Int.random(in: 0..<new.numbers.count, using: &generator)) }
      case 2: new.items.insert(Catalog.Item(id: id, title: "i"), at: Int.random(in: 0...new.items.count, using: &generator))
      case 3: if !new.items.isEmpty { new.items.remove(at: Int.random(in: 0..<new.items.count, using: &generator)) }
      case 4: if !new.items.isEmpty { new.items[Int.random(in: 0..<new.items.count, using: &generator)].detail.tags.append("t") }
      case 5: new.sheet = new.sheet == nil ? Catalog.Profile(name: "s\(step)") : nil
      case 6: new.sheet?.address.lines = []
      default: new.profile.address.lines.append("l\(step)")
      }
      let patch = try StatePatch(from: old, to: new)
      #expect(try patch.map { try $0.applied(to: old) } ?? old == new, "step \(step): \(String(describing: patch))")
      let decoded = try patch.map { patch -> StatePatch in
        var writer = ByteWriter()
        patch.write(to: &writer)
        var reader = ByteReader(writer.bytes)
        return try StatePatch(from: &reader)
      }
      #expect(decoded == patch)
      old = new
    }
  }

  @Test(arguments: [(5, 0), (4, 2), (-1, 0), (0, -1), (Int.max, 1)])
  func aSpliceOutsideTheListIsAProtocolViolation(offset: Int, removing: Int) {
    let patch = StatePatch.fields(["numbers": .splice(offset: offset, removing: removing, inserting: [])])
    #expect(throws: DistributionError.self) {
      _ = try patch.applied(to: Catalog(numbers: [1, 2, 3, 4], items: []))
    }
  }

  @Test func aSpliceCannotRepeatAnIdOfAnIdentifiedArray() throws {
    let old = Catalog(numbers: [], items: [Catalog.Item(id: 1, title: "a"), Catalog.Item(id: 2, title: "b")])
    let twin = try BinaryEncoder().encode(Catalog.Item(id: 1, title: "twin"))
    let patched = try StatePatch.fields(["items": .splice(offset: 2, removing: 0, inserting: [twin])]).applied(to: old)
    #expect(patched.items.ids == [1, 2])
    #expect(patched.items[id: 1]?.title == "a")
  }
}

/// The bytes `patch` takes on the wire.
private func wireSize(_ patch: StatePatch) -> Int {
  var writer = ByteWriter()
  patch.write(to: &writer)
  return writer.bytes.count
}
