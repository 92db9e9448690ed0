@testable import Bulkhead
@testable import BulkheadDistribution
import Examples
import Foundation
import TestThreads
import Testing
import Transport
import TransportTestSupport

/// The static path of a patch: a struct whose encoding is its stored properties is compared,
/// encoded and patched through its layout, and its patches are the ones its `Codable` fields
/// make, so that either side of a boundary may apply them either way.
@Suite(.onItsOwnThread) struct StoredLayoutTests {
  struct Editor: Codable, Equatable {
    var title = ""
    var count = 0
    var ratio = 0.5
    var isOn = false
    var note: String?
    var tags: [String] = []
    var rows: IdentifiedArrayOf<Row> = []
    var inner = Inner()
    var sheet: Inner?
    var mode = Mode.idle
    var stamp = Date(timeIntervalSince1970: 0)
    var link: URL?

    struct Row: Codable, Equatable, Identifiable { var id: Int; var text = "" }
    struct Inner: Codable, Equatable { var level = 0; var lines: [String] = [] }
    enum Mode: Codable, Equatable { case idle, editing(Int) }
  }

  @Test func aStructOfStoredPropertiesHasALayoutAndOthersDoNot() {
    #expect(StoredLayout.of(Editor.self, sample: Editor()) != nil)
    #expect(StoredLayout.of(Editor.Inner.self, sample: Editor.Inner()) != nil)
    #expect(StoredLayout.of(Payload.Store.State.self, sample: Payload.Store.State(items: 3)) != nil)

    struct Renamed: Codable, Equatable {
      var value = 0
      enum CodingKeys: String, CodingKey { case value = "v" }
    }
    struct LeavesOut: Codable, Equatable {
      var kept = 0
      var cache = 0
      enum CodingKeys: CodingKey { case kept }
    }
    struct Computed: Codable, Equatable {
      var stored = 1
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(stored, forKey: .stored)
        try container.encode(stored * 2, forKey: .twice)
      }
      init() {}
      init(from decoder: any Decoder) throws {
        stored = try decoder.container(keyedBy: Key.self).decode(Int.self, forKey: .stored)
      }
      enum Key: CodingKey { case stored, twice }
    }
    final class Shared: Codable, Equatable {
      var value = 0
      static func == (lhs: Shared, rhs: Shared) -> Bool { lhs.value == rhs.value }
    }
    // A renamed optional that is nil in the first value seen is found all the same: by the keys
    // decoding reads, not by what that value encodes (a template's first values are all nil).
    struct RenamedWhenPresent: Codable, Equatable {
      var note: String?
      var count = 0
      enum CodingKeys: String, CodingKey {
        case note = "n"
        case count
      }
    }
    struct OptionalUnderItsName: Codable, Equatable {
      var note: String?
      var count = 0
    }
    #expect(StoredLayout.of(RenamedWhenPresent.self, sample: RenamedWhenPresent()) == nil)
    #expect(StoredLayout.of(OptionalUnderItsName.self, sample: OptionalUnderItsName()) != nil)
    #expect(StoredLayout.of(Renamed.self, sample: Renamed()) == nil)
    #expect(StoredLayout.of(LeavesOut.self, sample: LeavesOut()) == nil)
    #expect(StoredLayout.of(Computed.self, sample: Computed()) == nil)
    #expect(StoredLayout.of(Shared.self, sample: Shared()) == nil)
    #expect(StoredLayout.of(Editor.Mode.self, sample: .idle) == nil)
    #expect(StoredLayout.of(Int.self, sample: 0) == nil)
  }

  @Test func randomEditsPatchAsTheCodableFieldsDoAndApplyBothWays() throws {
    var generator = SeededGenerator(seed: 26)
    var old = Editor()
    let layout = try #require(StoredLayout.of(Editor.self, sample: old))
    for step in 0..<800 {
      var new = old
      for _ in 0...Int.random(in: 0..<3, using: &generator) { edit(&new, step: step, using: &generator) }
      let patch = try StatePatch(from: old, to: new)
      let captured = try FieldAccess.changes(from: old, to: new, depth: 0)
      #expect(patch == captured.flatMap { $0.isEmpty ? nil : .fields($0) }, "step \(step)")
      #expect(try patch.map { try $0.applied(to: old) } ?? old == new, "step \(step)")
      if case let .fields(fields)? = patch {
        #expect(try layout.applying(fields, to: old) == new, "step \(step): by the layout")
        let decoder = PatchingDecoder(old: try #require(FieldCapture.capture(old)), fields: fields)
        #expect(try Editor(from: decoder) == new, "step \(step): through Codable")
      }
      old = new
    }
  }

  @Test func applyingLeavesTheOldValueAsItWas() throws {
    let old = Editor(title: "before", tags: ["a"], sheet: Editor.Inner(level: 1))
    var new = old
    new.title = "after"
    new.tags.append("b")
    new.sheet = nil
    let patch = try #require(try StatePatch(from: old, to: new))
    #expect(try patch.applied(to: old) == new)
    #expect(old.title == "before" && old.tags == ["a"] && old.sheet?.level == 1)
  }

  @Test func aPatchOfAFieldTheTypeDoesNotHaveSaysWhich() throws {
    let patch = StatePatch.fields(["title": .whole(try BinaryEncoder().encode("x")), "colour": .removed])
    #expect {
      _ = try patch.applied(to: Editor())
    } throws: { error in
      "\(error)".contains("\"colour\"") && "\(error)".contains("Editor")
    }
    let nilSheet = StatePatch.fields(["sheet": .fields(["level": .whole(try BinaryEncoder().encode(1))])])
    #expect(throws: DistributionError.self) { _ = try nilSheet.applied(to: Editor()) }
  }

  @Test func aTrivialFieldThatIsNotEquatableIsComparedByItsBytes() throws {
    struct Point: Codable { var x = 0; var y = 0 }
    struct Canvas: Codable { var origin = Point(); var label = "" }
    let old = Canvas()
    var moved = old
    moved.origin.y = 3
    var relabelled = old
    relabelled.label = "l"
    #expect(StoredLayout.of(Canvas.self, sample: old) != nil)
    #expect(try StatePatch(from: old, to: old) == nil)
    #expect(try StatePatch(from: old, to: relabelled) == .fields(["label": .whole(try BinaryEncoder().encode("l"))]))
    let patch = try #require(try StatePatch(from: old, to: moved))
    #expect(try patch.applied(to: old).origin.y == 3)
  }

  private func edit(_ state: inout Editor, step: Int, using generator: inout SeededGenerator) {
    switch Int.random(in: 0..<14, using: &generator) {
    case 0: state.title = "t\(Int.random(in: 0..<4, using: &generator))"
    case 1: state.count += 1
    case 2: state.ratio = Double(Int.random(in: 0..<3, using: &generator)) / 2
    case 3: state.isOn.toggle()
    case 4: state.note = state.note == nil ? "n\(step)" : nil
    case 5: state.tags.insert("g\(step)", at: Int.random(in: 0...state.tags.count, using: &generator))
    case 6: state.rows.append(Editor.Row(id: step, text: "r"))
    case 7: if !state.rows.isEmpty { state.rows[Int.random(in: 0..<state.rows.count, using: &generator)].text += "!" }
    case 8: state.inner.lines.append("l\(step)")
    case 9: state.sheet = state.sheet == nil ? Editor.Inner(level: step) : nil
    case 10: state.sheet?.level += 1
    case 11: state.stamp.addTimeInterval(1.5)
    case 12: state.link = state.link == nil ? URL(string: "https://example.com/\(step)") : nil
    default: state.mode = state.mode == .idle ? .editing(step) : .idle
    }
  }
}
