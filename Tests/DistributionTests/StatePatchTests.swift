import Bulkhead
import Testing
import Transport
import TransportTestSupport

@Suite struct StatePatchTests {
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
    #expect(patch == .fields(["title": Array("after".utf8)]) || patch.byteCount < 10)
    #expect(try BinaryEncoder().encode(patch).count < 40)
    #expect(try patch.applied(to: old) == new)
  }

  @Test func fieldsGoByTheirCodingKeys() throws {
    struct Renamed: Codable, Equatable {
      var value = 0
      var other = "same"
      enum CodingKeys: String, CodingKey { case value = "v", other }
    }
    let patch = try #require(try StatePatch(from: Renamed(), to: Renamed(value: 3)))
    #expect(patch == .fields(["v": try BinaryEncoder().encode(3)]))
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
    #expect(hiding == .fields(["title": []]))
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
      _ = try StatePatch.fields(["count": [2]]).applied(to: Form?.none)
    }
  }
}
