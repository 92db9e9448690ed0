@testable import BulkheadDistribution
import Testing
import Transport

/// A worker template rehearses a first change of each child state on its least value: the
/// patches made afterwards, from values with every kind of field set, are the ones its
/// `Codable` fields make, and apply.
@Suite struct ChangeRehearsalTests {
  struct Form: Codable, Equatable {
    var title = ""
    var note: String?
    var rows: [Row] = []
    var inner = Inner()
    var draft: Inner?

    struct Row: Codable, Equatable { var id = 0 }
    struct Inner: Codable, Equatable {
      var level = 0
      var tags: [String] = []
    }
  }

  @Test func patchesAfterARehearsalAreTheCodableFieldsOnes() throws {
    let sample = try #require(LeastValueDecoder.sample(of: Form.self))
    StatePatch.rehearseChange(of: sample)
    var old = sample
    old.rows = [Form.Row(id: 1), Form.Row(id: 2)]
    old.draft = Form.Inner(level: 1)
    var new = old
    new.title = "title"
    new.note = "note"
    new.rows.append(Form.Row(id: 3))
    new.inner.tags = ["a"]
    new.draft?.level = 2
    let patch = try #require(try StatePatch(from: old, to: new))
    let captured = try #require(try FieldAccess.changes(from: old, to: new, depth: 0))
    #expect(patch == .fields(captured))
    #expect(try patch.applied(to: old) == new)
    guard case let .fields(fields) = patch else { return }
    #expect(fields["rows"] == .splice(offset: 2, removing: 0, inserting: [try BinaryEncoder().encode(Form.Row(id: 3))]))
  }
}
