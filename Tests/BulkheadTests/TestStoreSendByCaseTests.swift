import Bulkhead
import BulkheadTesting
import Examples
import Testing

/// Sending by case, as TCA's tests send by case key path: the case and its payload, an
/// element of a stack or a collection by id, a presented child.
@MainActor
@Suite struct TestStoreSendByCaseTests {
  @Test func sendsIntoAPresentedDestinationAndAStackElementByCase() async {
    let welcome = Notes.Note(id: 0, title: "Welcome")
    let store = TestStore(initialState: Notes.State()) { Notes() }
    await store.send(.addButtonTapped) { $0.destination = .editor(Notes.Editor.State()) }
    // TCA: store.send(\.destination.editor.titleChanged, "Groceries")
    await store.send(Notes.Action.destination, .editor(.titleChanged("Groceries"))) {
      $0.destination = .editor(Notes.Editor.State(title: "Groceries"))
    }
    // A payload that is itself the presentation's own action.
    await store.send(Notes.Action.destination, .dismiss) { $0.destination = nil }
    // TCA: store.send(\.noteTapped, 0)
    var detail = Notes.Detail.State(note: welcome)
    await store.send(Notes.Action.noteTapped, 0) { $0.path.append(.detail(detail)) }
    // TCA: store.send(\.path[id: 0].detail.bodyChanged, "Milk")
    detail.note.body = "Milk"
    await store.send(Notes.Action.path, id: 0, .detail(.bodyChanged("Milk"))) {
      $0.path[id: 0] = .detail(detail)
    }
  }

  @Test func sendsIntoACollectionElementByID() async {
    let store = TestStore(initialState: Timers.State(timers: [Timers.Timer.State(id: 1)])) { Timers() }
    // TCA: store.send(\.timers[id: 1].tick)
    await store.send(Timers.Action.timers, id: 1, .tick) {
      $0.timers[id: 1]?.ticks = 1
      $0.totalTicks = 1
    }
  }

  @Test func aWrongExpectationFailsAtTheCaseSend() async {
    let store = TestStore(initialState: Timers.State(timers: [Timers.Timer.State(id: 1)])) { Timers() }
    let line = #line + 2
    await withKnownIssue {
      await store.send(Timers.Action.timers, id: 1, .tick) { $0.totalTicks = 1 }
    } matching: { issue in
      issue.sourceLocation?.line == line
        && issue.comments.contains { $0.rawValue.contains("A state change does not match expectation") }
    }
  }
}
