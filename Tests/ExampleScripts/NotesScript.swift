import Bulkhead
import BulkheadTesting
import Examples

extension ExampleScripts {
  /// The Notes app through every navigation tool: the sheet saves and dismisses itself, a
  /// pushed detail's timer ticks and is cancelled when "Done" pops it, an info screen closes
  /// itself, the alert deletes, and the dialog clears the list and the stack, cancelling the
  /// timer of the detail on it. `clock` must be the store's clock.
  public static func notes(_ store: TestStore<Notes.State, Notes.Action>, clock: TestClock) async {
    let welcome = Notes.Note(id: 0, title: "Welcome")
    let groceries = Notes.Note(id: 1, title: "Groceries")
    var saving = Notes.Editor.State(title: "Groceries")
    saving.isSaving = true

    // The sheet: saving takes 200 ms on the clock, hands the title over, and dismisses.
    await store.send(.addButtonTapped) { $0.destination = .editor(Notes.Editor.State()) }
    await store.send(.destination(.presented(.editor(.titleChanged("Groceries"))))) {
      $0.destination = .editor(Notes.Editor.State(title: "Groceries"))
    }
    await store.send(.destination(.presented(.editor(.saveButtonTapped)))) { $0.destination = .editor(saving) }
    await clock.advance(by: .milliseconds(200))
    await store.receive(.destination(.presented(.editor(.delegate(.save(title: "Groceries")))))) {
      $0.notes.append(groceries)
      $0.nextNoteID = 2
    }
    await store.receive(.destination(.dismiss)) { $0.destination = nil }

    // The stack: a detail whose reading timer ticks, an info screen above it that closes itself.
    var detail = Notes.Detail.State(note: groceries)
    await store.send(.noteTapped(id: 1)) { $0.path.append(.detail(detail)) }
    detail.isReading = true
    await store.send(.path(.element(id: 0, action: .detail(.readButtonTapped)))) { $0.path[id: 0] = .detail(detail) }
    await clock.advance(by: .seconds(1))
    detail.secondsRead = 1
    await store.receive(.path(.element(id: 0, action: .detail(.timerTicked)))) { $0.path[id: 0] = .detail(detail) }
    detail.note.body = "Milk, eggs"
    await store.send(.path(.element(id: 0, action: .detail(.bodyChanged("Milk, eggs"))))) {
      $0.path[id: 0] = .detail(detail)
    }
    await store.send(.path(.element(id: 0, action: .detail(.infoButtonTapped)))) {
      $0.path.append(.info(Notes.Info.State(note: detail.note)))
    }
    await store.send(.path(.element(id: 1, action: .info(.closeButtonTapped))))
    await store.receive(.path(.popFrom(id: 1))) { $0.path.pop(from: 1) }

    // "Done" saves the note and pops the detail; its timer goes with it.
    await store.send(.path(.element(id: 0, action: .detail(.doneButtonTapped))))
    await store.receive(.path(.element(id: 0, action: .detail(.delegate(.save(detail.note)))))) {
      $0.notes[id: 1] = detail.note
    }
    await store.receive(.path(.popFrom(id: 0))) { $0.path = [] }
    await clock.advance(by: .seconds(5))

    // The alert deletes a note and goes away after its action.
    await store.send(.deleteButtonTapped(id: 0)) { $0.destination = .alert(.deletion(of: welcome)) }
    await store.send(.destination(.presented(.alert(.confirmDeletion(id: 0))))) {
      $0.destination = nil
      $0.notes.remove(id: 0)
    }

    // The dialog clears the list and the stack, whose detail was reading: its timer stops.
    var again = Notes.Detail.State(note: detail.note)
    await store.send(.noteTapped(id: 1)) { $0.path.append(.detail(again)) }
    again.isReading = true
    await store.send(.path(.element(id: 2, action: .detail(.readButtonTapped)))) { $0.path[id: 2] = .detail(again) }
    await store.send(.clearButtonTapped) { $0.destination = .dialog(.clearAll) }
    await store.send(.destination(.presented(.dialog(.clearAll)))) {
      $0.destination = nil
      $0.notes = []
      $0.path = []
    }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }
}
