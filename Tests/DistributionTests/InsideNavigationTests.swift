import Bulkhead
import BulkheadDistribution
import BulkheadTesting
import ExampleScripts
import Examples
import Foundation
import Testing

/// The features inside a presented sheet and inside stack screens run in workers of their own
/// while the host presents and pushes them: `destination.editor`, `path.detail`. A dismissal
/// from their effects goes through the host's presenting operator; dismissing or popping ends
/// their effects in the worker, which forgets the child and serves the next one warm.
@MainActor
@Suite(.serialized) struct InsideNavigationTests {
  @Test func theNotesScriptPassesWithTheSheetsEditorAndTheScreensInWorkers() async throws {
    let placement = try String(contentsOfFile: "placements/notes-inside.placement", encoding: .utf8)
    let clock = TestClock()
    let composition = try composition(app: "notes", placement: placement)
    defer { composition.shutdown() }
    #expect(composition.processes.map(\.boundary) == ["destination.editor", "path.detail", "path.info"])
    let store = TestStore(initialState: Notes.State()) {
      composition.compose(Notes())
    } withDependencies: {
      $0.continuousClock = clock
    }
    // The editor's save sleeps in its worker and dismisses the sheet from there; the info
    // screen closes itself from its worker; "Done" pops the detail and ends its timer there.
    await ExampleScripts.notes(store, clock: clock)
    #expect(composition.statistics(of: "destination.editor")?.slotsDropped == 1)
    #expect(composition.statistics(of: "path.detail")?.slotsDropped == 2)
    #expect(composition.statistics(of: "path.info")?.slotsDropped == 1)
  }

  @Test func dismissingTheSheetWhileTheEditorSavesEndsTheSaveInItsWorker() async throws {
    let clock = TestClock()
    let events = Events()
    let composition = try composition(app: "notes", placement: "destination.editor\n", events: events)
    defer { composition.shutdown() }
    let pid = try #require(composition.processes.first?.pids.first)
    let store = TestStore(initialState: Notes.State()) {
      composition.compose(Notes())
    } withDependencies: {
      $0.continuousClock = clock
    }
    var editor = Notes.Editor.State(title: "Tea")
    await store.send(.addButtonTapped) { $0.destination = .editor(Notes.Editor.State()) }
    await store.send(.destination(.presented(.editor(.titleChanged("Tea"))))) { $0.destination = .editor(editor) }
    editor.isSaving = true
    // The save sleeps 200 ms in the worker; the user swipes the sheet away meanwhile.
    await store.send(.destination(.presented(.editor(.saveButtonTapped)))) { $0.destination = .editor(editor) }
    await store.send(.destination(.dismiss)) { $0.destination = nil }
    // Its late action never comes: the store would fail on a `.delegate(.save)` it did not
    // receive, and on an effect still running at the end.
    await clock.advance(by: .seconds(1))
    await store.finish()
    #expect(composition.statistics(of: "destination.editor")?.slotsDropped == 1)
    #expect(composition.processes.first?.pids == [pid])
    #expect(!events.all.contains { if case .effectsLost = $0 { true } else { false } })
  }

  @Test func aSheetPresentedAgainStartsFreshInTheSameWarmWorker() async throws {
    let events = Events()
    let composition = try composition(app: "notes", placement: "destination.editor\n", events: events)
    defer { composition.shutdown() }
    let pid = try #require(composition.processes.first?.pids.first)
    let store = TestStore(initialState: Notes.State()) { composition.compose(Notes()) }
    await store.send(.addButtonTapped) { $0.destination = .editor(Notes.Editor.State()) }
    await store.send(.destination(.presented(.editor(.titleChanged("Tea"))))) {
      $0.destination = .editor(Notes.Editor.State(title: "Tea"))
    }
    // "Cancel" calls `dismiss()` in the worker; the host dismisses the sheet.
    await store.send(.destination(.presented(.editor(.cancelButtonTapped))))
    await store.receive(.destination(.dismiss)) { $0.destination = nil }
    await store.send(.addButtonTapped) { $0.destination = .editor(Notes.Editor.State()) }
    await store.send(.destination(.presented(.editor(.titleChanged("Milk"))))) {
      $0.destination = .editor(Notes.Editor.State(title: "Milk"))
    }
    await store.finish()
    // The same process, which forgot the first sheet's editor: the second started from the
    // host's whole state, not a patch on the first.
    #expect(composition.processes.first?.pids == [pid])
    #expect(composition.statistics(of: "destination.editor")?.slotsDropped == 1)
    #expect(!events.all.contains { if case .workerRetired = $0 { true } else { false } })
  }

  @Test func threeScreensOverAPoolOfTwoKeepTheirOwnDetailsAndAPopEndsOnlyItsTimer() async throws {
    let clock = TestClock()
    let composition = try composition(app: "notes", placement: "path.detail pool 2\n")
    defer { composition.shutdown() }
    #expect(composition.processes.first?.pids.count == 2)
    let welcome = Notes.Note(id: 0, title: "Welcome")
    let store = TestStore(initialState: Notes.State()) {
      composition.compose(Notes())
    } withDependencies: {
      $0.continuousClock = clock
    }
    var details: [Notes.Detail.State] = []
    for (id, body) in ["milk", "eggs", "tea"].enumerated() {
      var detail = Notes.Detail.State(note: welcome)
      await store.send(.noteTapped(id: 0)) { $0.path[id: StackElementID(generation: id)] = .detail(detail) }
      detail.note.body = body
      await store.send(.path(.element(id: StackElementID(generation: id), action: .detail(.bodyChanged(body))))) {
        $0.path[id: StackElementID(generation: id)] = .detail(detail)
      }
      details.append(detail)
    }
    // Each screen's timer starts 300 ms after the one below, so that their ticks arrive in a
    // fixed order from two workers.
    for id in 0..<3 {
      details[id].isReading = true
      await store.send(.path(.element(id: StackElementID(generation: id), action: .detail(.readButtonTapped)))) { [details] in
        $0.path[id: StackElementID(generation: id)] = .detail(details[id])
      }
      if id < 2 { await clock.advance(by: .milliseconds(300)) }
    }
    await clock.advance(by: .milliseconds(400))
    for id in 0..<3 {
      details[id].secondsRead = 1
      await store.receive(.path(.element(id: StackElementID(generation: id), action: .detail(.timerTicked)))) { [details] in
        $0.path[id: StackElementID(generation: id)] = .detail(details[id])
      }
      if id < 2 { await clock.advance(by: .milliseconds(300)) }
    }
    // The top screen goes: its timer ends in its worker, the two below tick on.
    await store.send(.path(.popFrom(id: 2))) { $0.path[id: 2] = nil }
    #expect(composition.statistics(of: "path.detail")?.slotsDropped == 1)
    await clock.advance(by: .milliseconds(400))
    for id in 0..<2 {
      details[id].secondsRead = 2
      await store.receive(.path(.element(id: StackElementID(generation: id), action: .detail(.timerTicked)))) { [details] in
        $0.path[id: StackElementID(generation: id)] = .detail(details[id])
      }
      await clock.advance(by: .milliseconds(300))
    }
    await store.send(.path(.popFrom(id: 0))) { $0.path = [] }
    await clock.advance(by: .seconds(5))
    await store.finish()
    #expect(composition.statistics(of: "path.detail")?.slotsDropped == 3)
  }
}
