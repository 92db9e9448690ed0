import Bulkhead
@testable import BulkheadDistribution
import Foundation
import Testing
import TransportTestSupport

/// States of every shape a patch takes (by layout, by captured fields, whole, by splice),
/// changed on both sides of a boundary, agree step by step with the same feature in one
/// process.
@MainActor
@Suite struct StoredLayoutBoundaryTests {
  @Test func statesOfEveryShapeCrossBothWaysAsInOneProcess() throws {
    let composition = try Composition(
      root: Shelf(), placement: Placement(parsing: "editor\n", file: "shelf.placement"), command: .loopback { Shelf() })
    defer { composition.shutdown() }
    let remote = Store(initialState: Shelf.State()) { composition.compose(Shelf()) }
    let local = Store(initialState: Shelf.State()) { Shelf() }
    var generator = SeededGenerator(seed: 2026)
    for step in 0..<400 {
      let action: Shelf.Action =
        Int.random(in: 0..<4, using: &generator) == 0
        ? .touchEditor(step) : .editor(Editor.Action.allCases.randomElement(using: &generator)!)
      remote.send(action)
      local.send(action)
      #expect(remote.state == local.state, "step \(step): \(action)")
    }
    #expect(composition.statistics(of: "editor")?.actions ?? 0 > 200)
  }
}

/// A parent that changes its child's state itself now and then, so patches go to the worker too.
private struct Shelf: Reducer {
  struct State: Equatable, Codable, Sendable {
    var editor = Editor.State()
    var touches = 0
  }

  enum Action: Equatable, Codable, Sendable {
    case editor(Editor.Action)
    case touchEditor(Int)
  }

  var body: some Reducer<State, Action> {
    Scope(state: \.editor, action: Action.editor) { Editor() }
    Reduce { state, action in
      if case let .touchEditor(step) = action {
        state.touches += 1
        state.editor.title = "touched \(step)"
        state.editor.sheet?.lines.append("from the parent")
      }
      return .none
    }
  }
}

private struct Editor: Reducer {
  struct State: Equatable, Codable, Sendable {
    var title = ""
    var count = 0
    var note: String?
    var tags: [String] = []
    var rows: IdentifiedArrayOf<Row> = []
    var sheet: Sheet?
    var renamed = Renamed()
    var mode = Mode.idle
    var stamp = Date(timeIntervalSince1970: 0)
  }

  struct Row: Equatable, Codable, Sendable, Identifiable { var id: Int; var text = "" }
  struct Sheet: Equatable, Codable, Sendable { var level = 0; var lines: [String] = [] }
  /// Goes by its captured fields, inside a state that goes by its layout.
  struct Renamed: Equatable, Codable, Sendable {
    var value = 0
    enum CodingKeys: String, CodingKey { case value = "v" }
  }
  enum Mode: Equatable, Codable, Sendable { case idle, editing(Int) }

  enum Action: Equatable, Codable, Sendable, CaseIterable {
    case retitle, count, toggleNote, tag, addRow, editRow, removeRow, toggleSheet, deepen, rename, mode, tick
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .retitle: state.title += "a"
    case .count: state.count += 1
    case .toggleNote: state.note = state.note == nil ? "note \(state.count)" : nil
    case .tag: state.tags.insert("t\(state.count)", at: state.tags.count / 2)
    case .addRow: state.rows.append(Row(id: state.rows.count + 100 * state.count))
    case .editRow: if let id = state.rows.ids.first { state.rows[id: id]?.text += "!" }
    case .removeRow: if !state.rows.isEmpty { state.rows.remove(at: state.rows.count / 2) }
    case .toggleSheet: state.sheet = state.sheet == nil ? Sheet(level: state.count) : nil
    case .deepen: state.sheet?.level += 1
    case .rename: state.renamed.value += 1
    case .mode: state.mode = state.mode == .idle ? .editing(state.count) : .idle
    case .tick: state.stamp.addTimeInterval(0.25)
    }
    return .none
  }
}
