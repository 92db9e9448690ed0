import Bulkhead
import BulkheadDistribution
import BulkheadTesting
import ExampleApps
import Examples
import Testing

/// A presented destination and a navigation stack are boundaries like `ifLet` and `forEach`:
/// listed, placeable, pooled; dismissal from a worker's own effect goes through the host, and
/// dismissing or popping lets the worker go.
@MainActor
@Suite(.serialized) struct NavigationBoundaryTests {
  @Test func theDestinationTheStackAndWhatIsInsideThemAreListedAndPlaceable() throws {
    let notes = try #require(ExampleApp.named("notes"))
    #expect(
      notes.boundaries.map(\.description) == [
        "path (forEach → Path)", "path.detail (Scope → Detail)", "path.info (Scope → Info)",
        "destination (ifLet → Destination)", "destination.editor (Scope → Editor)",
      ])
    let inside = try Placement(parsing: "destination.editor\npath.detail pool 3\n", file: "notes.placement")
    try inside.validate(against: notes.boundaries)
    let pooled = try Placement(parsing: "destination\npath pool 4\n", file: "notes.placement")
    try pooled.validate(against: notes.boundaries)
    // The editor is one child, not one per element: it takes no pool.
    let pooledEditor = try Placement(parsing: "destination.editor pool 2\n", file: "notes.placement")
    #expect(
      throws: DistributionError.placement(
        file: "notes.placement", line: 1, reason: .poolOutsideForEach(path: "destination.editor", kind: "Scope"))
    ) { try pooledEditor.validate(against: notes.boundaries) }
  }

  @Test func aDestinationThatDismissesItselfFromItsWorkerRetiresTheWorker() async throws {
    let clock = TestClock()
    let events = Events()
    let composition = try composition(app: "notes", placement: "destination\nwarm 0\n", events: events)  // a worker of its own
    defer { composition.shutdown() }
    let first = try #require(composition.processes.first?.pids.first)
    let store = TestStore(initialState: Notes.State()) {
      composition.compose(Notes())
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.addButtonTapped) { $0.destination = .editor(Notes.Editor.State()) }
    // The cancel button's effect runs in the worker and calls `dismiss()` there.
    await store.send(.destination(.presented(.editor(.cancelButtonTapped))))
    await store.receive(.destination(.dismiss)) { $0.destination = nil }
    #expect(await events.first { $0 == .workerRetired(boundary: "destination", pid: first) } != nil)
    #expect(!events.all.contains { if case .effectsLost = $0 { true } else { false } })
    // A fresh worker serves the next presentation.
    await store.send(.addButtonTapped) { $0.destination = .editor(Notes.Editor.State()) }
    await store.send(.destination(.presented(.editor(.titleChanged("Tea"))))) {
      $0.destination = .editor(Notes.Editor.State(title: "Tea"))
    }
    #expect(composition.processes.first?.pids.first != first)
    await store.finish()
  }

  @Test func anAlertStaysUpWhenAnotherCaseOfItsPlacedDestinationGetsAnAction() async throws {
    let composition = try composition(app: "notes", placement: "destination\n")
    defer { composition.shutdown() }
    let store = Store(initialState: Notes.State()) { composition.compose(Notes()) }
    store.send(.deleteButtonTapped(id: 0))
    let alert = store.state.destination
    let warnings = Log<RuntimeWarning>()
    await withRuntimeWarningHandler(warnings.append) {
      await store.send(.destination(.presented(.editor(.titleChanged("Tea"))))).finish()
    }
    // The worker's `Scope` of the editor warned, and the alert is still up.
    #expect(warnings.all.count == 1)
    #expect(warnings.all.first?.message.contains("The worker of boundary \"destination\"") == true)
    #expect(warnings.all.first?.message.contains("received a child action when child state was set to a different case") == true)
    #expect(store.state.destination == alert)
    await store.send(.destination(.presented(.alert(.confirmDeletion(id: 0))))).finish()
    #expect(store.state.destination == nil)
    #expect(store.state.notes.isEmpty)
  }

  @Test func aPushOntoAStackInWorkersIsAssertedByAssigningAtTheIdItGets() async throws {
    let composition = try composition(app: "notes", placement: "path pool 2\n")
    defer { composition.shutdown() }
    let welcome = Notes.Note(id: 0, title: "Welcome")
    let store = TestStore(initialState: Notes.State()) { composition.compose(Notes()) }
    await store.send(.noteTapped(id: 0)) { $0.path[id: 0] = .detail(Notes.Detail.State(note: welcome)) }
    // The detail's action runs in its worker; the host pushes the info screen at the next id.
    await store.send(.path(.element(id: 0, action: .detail(.infoButtonTapped)))) {
      $0.path[id: 1] = .info(Notes.Info.State(note: welcome))
    }
    #expect(store.state.path.nextID == 2)
    // The info screen dismisses itself from its worker; the assertion removes it by id.
    await store.send(.path(.element(id: 1, action: .info(.closeButtonTapped))))
    await store.receive(.path(.popFrom(id: 1))) { $0.path[id: 1] = nil }
    await store.finish()
    #expect(composition.statistics(of: "path")?.slotsDropped == 1)
  }

  @Test func aScreenThatPopsItselfFromAPoolWorkerIsForgottenThereWithItsTimer() async throws {
    let clock = TestClock()
    let composition = try composition(app: "notes", placement: "path pool 2\n")
    defer { composition.shutdown() }
    let welcome = Notes.Note(id: 0, title: "Welcome")
    let store = TestStore(initialState: Notes.State()) {
      composition.compose(Notes())
    } withDependencies: {
      $0.continuousClock = clock
    }
    var detail = Notes.Detail.State(note: welcome)
    await store.send(.noteTapped(id: 0)) { $0.path.append(.detail(detail)) }
    await store.send(.noteTapped(id: 0)) { $0.path.append(.detail(detail)) }
    detail.isReading = true
    // The timers start half a second apart, so that their ticks arrive in a fixed order even
    // from two workers.
    await store.send(.path(.element(id: 0, action: .detail(.readButtonTapped)))) { $0.path[id: 0] = .detail(detail) }
    await clock.advance(by: .milliseconds(500))
    await store.send(.path(.element(id: 1, action: .detail(.readButtonTapped)))) { $0.path[id: 1] = .detail(detail) }
    detail.secondsRead = 1
    await clock.advance(by: .milliseconds(500))
    await store.receive(.path(.element(id: 0, action: .detail(.timerTicked)))) { $0.path[id: 0] = .detail(detail) }
    await clock.advance(by: .milliseconds(500))
    await store.receive(.path(.element(id: 1, action: .detail(.timerTicked)))) { $0.path[id: 1] = .detail(detail) }
    // "Done" on the lower screen pops both: both timers stop, in whichever worker they ran.
    await store.send(.path(.element(id: 0, action: .detail(.doneButtonTapped))))
    await store.receive(.path(.element(id: 0, action: .detail(.delegate(.save(welcome))))))
    await store.receive(.path(.popFrom(id: 0))) { $0.path = [] }
    await clock.advance(by: .seconds(5))
    await store.finish()
    #expect(composition.statistics(of: "path")?.slotsDropped == 2)
  }
}
