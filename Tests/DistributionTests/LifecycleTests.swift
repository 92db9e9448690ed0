import Bulkhead
import BulkheadDistribution
import BulkheadTesting
import Examples
import Testing

/// Workers follow the child states they serve: an `ifLet` child's worker is retired when the
/// child is dismissed and a fresh one waits for the next presentation; a `forEach` worker
/// forgets the elements that leave the collection.
@MainActor
@Suite(.serialized) struct LifecycleTests {
  @Test func dismissingAnIfLetChildRetiresItsWorkerAndAFreshOneServesTheNext() async throws {
    let events = Events()
    let composition = try composition(app: "detail", placement: "detail\nwarm 0\n", events: events)  // a worker of its own
    defer { composition.shutdown() }
    let first = try #require(composition.processes.first?.pids.first)
    let store = TestStore(initialState: DetailPresenter.State()) { composition.compose(DetailPresenter()) }
    await store.send(.showDetailTapped) { $0.detail = DetailPresenter.Detail.State(description: "") }
    await store.send(.detail(.descriptionChanged("Notes"))) { $0.detail?.description = "Notes" }
    await store.send(.detail(.closeButtonTapped)) { $0.detail = nil }

    let retired = await events.first { $0 == .workerRetired(boundary: "detail", pid: first) }
    #expect(retired != nil)
    #expect(await events.first { $0 == .workerExited(boundary: "detail", pid: first) } != nil)
    let successor = await events.first {
      if case let .workerStarted("detail", pid) = $0 { pid != first } else { false }
    }
    #expect(successor != nil)

    await store.send(.showDetailTapped) { $0.detail = DetailPresenter.Detail.State(description: "") }
    await store.send(.detail(.descriptionChanged("Fresh"))) { $0.detail?.description = "Fresh" }
    #expect(composition.processes.first?.pids.count == 1)
    #expect(composition.processes.first?.pids.first != first)
    #expect(composition.statistics(of: "detail")?.workersRetired == 1)
  }

  @Test func aChildDismissedByItsOwnEffectsActionLosesNoEffect() async throws {
    let events = Events()
    let composition = try composition(app: "profile", placement: "editForm\n", events: events)
    defer { composition.shutdown() }
    let store = TestStore(initialState: ProfileEditor.State(name: "Blob", email: "blob@example.com")) {
      composition.compose(ProfileEditor())
    }
    await store.send(.editButtonTapped) {
      $0.editForm = ProfileEditor.EditForm.State(name: "Blob", email: "blob@example.com")
    }
    await store.send(.editForm(.saveButtonTapped)) { $0.editForm?.isSaving = true }
    await store.receive(.editForm(.saveResponse(.success))) { $0.editForm = nil }
    await store.finish()
    #expect(await events.first { if case .workerRetired = $0 { true } else { false } } != nil)
    #expect(!events.all.contains { if case .effectsLost = $0 { true } else { false } })
  }

  @Test func aRemovedElementIsForgottenByItsWorker() async throws {
    let composition = try composition(app: "timers", placement: "timers pool 2\n")
    defer { composition.shutdown() }
    let pids = composition.processes.first?.pids
    let store = TestStore(initialState: Timers.State()) { composition.compose(Timers()) }
    await store.send(.addTimerTapped) { $0.timers = [Timers.Timer.State(id: 1)] }
    await store.send(.timers(.element(id: 1, action: .tick))) {
      $0.timers[id: 1]?.ticks = 1
      $0.totalTicks = 1
    }
    await store.send(.removeTimerTapped(id: 1)) { $0.timers.remove(id: 1) }
    let statistics = composition.statistics(of: "timers")
    #expect(statistics?.slotsDropped == 1)
    #expect(statistics?.workersRetired == 0)
    #expect(composition.processes.first?.pids == pids)
  }

  @Test func anElementThatNeverReachedAWorkerHasNothingToForget() async throws {
    let composition = try composition(app: "timers", placement: "timers pool 2\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: Timers.State()) { composition.compose(Timers()) }
    await store.send(.addTimerTapped) { $0.timers = [Timers.Timer.State(id: 1)] }
    await store.send(.removeTimerTapped(id: 1)) { $0.timers.remove(id: 1) }
    #expect(composition.statistics(of: "timers")?.slotsDropped == 0)
  }
}
