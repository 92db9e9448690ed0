import Bulkhead
import BulkheadDistribution
import BulkheadTesting
import ExampleScripts
import Examples
import Testing

/// The seed examples with their boundaries in worker processes pass the same `TestStore`
/// assertions as in one process.
@MainActor
@Suite(.serialized) struct RemoteExamplesTests {
  @Test func twoCountersWithEachCounterInAWorker() async throws {
    let composition = try composition(app: "two-counters", placement: "counter1\ncounter2\n")
    defer { composition.shutdown() }
    await ExampleScripts.twoCounters(TestStore(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) })
    #expect(composition.processes.map(\.boundary) == ["counter1", "counter2"])
    #expect(composition.processes.allSatisfy { $0.pids.count == 1 })
  }

  @Test func dashboardSiblingsInWorkersAndTheParentReactsInTheHost() async throws {
    let composition = try composition(app: "dashboard", placement: "settings\nnotifications\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: Dashboard.State()) { composition.compose(Dashboard()) }
    await ExampleScripts.dashboard(store)
    // The parent cleared the notifications after the settings child ran in its worker; the
    // notifications worker must see the host's change before its next action.
    await store.send(.notifications(.received("Again"))) { $0.notifications.unread = ["Again"] }
  }

  @Test func scopeOnEnumStateWithTheLoadedCaseInAWorker() async throws {
    let composition = try composition(app: "loader", placement: "child\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: Loader.State.unloaded) {
      composition.compose(Loader())
    } withDependencies: {
      $0.documentLoader = DocumentLoader { "Draft" }
    }
    await ExampleScripts.loader(store)
    await store.send(.child(.cleared)) { $0 = .loaded(Loader.Document.State(text: "")) }
    #expect(composition.statistics(of: "child")?.actions == 2)
  }

  @Test func anAlertInAWorkerConfirmsTheDeletion() async throws {
    let composition = try composition(app: "item-list", placement: "alert\n")
    defer { composition.shutdown() }
    await ExampleScripts.itemListConfirmDeletion(
      TestStore(initialState: ItemList.State(items: ["A", "B"])) { composition.compose(ItemList()) })
    #expect(composition.statistics(of: "alert")?.actions == 1)
  }

  @Test func anIfLetChildInAWorkerIsPresentedEditedAndDismissed() async throws {
    let composition = try composition(app: "detail", placement: "detail\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: DetailPresenter.State()) { composition.compose(DetailPresenter()) }
    await ExampleScripts.detail(store)
    await store.send(.showDetailTapped) { $0.detail = DetailPresenter.Detail.State(description: "") }
    await store.send(.detail(.descriptionChanged("Fresh"))) { $0.detail?.description = "Fresh" }
  }

  @Test func aWorkersEffectActionsGoThroughTheHostsRootReducer() async throws {
    let composition = try composition(app: "profile", placement: "editForm\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: ProfileEditor.State(name: "Blob", email: "blob@example.com")) {
      composition.compose(ProfileEditor())
    }
    // The save effect runs in the worker, with the API client's test value.
    await ExampleScripts.profileSave(store)
  }

  @Test func actionBoundariesAcrossAProcess() async throws {
    let composition = try composition(app: "onboarding", placement: "_internal.login\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: Onboarding.State()) { composition.compose(Onboarding()) }
    // The login effect runs in the worker, with the authenticator's test value.
    await ExampleScripts.onboardingLogin(store, token: "token-blob")
  }

  @Test func forEachElementsAreSpreadOverAPoolAndRemovalCancelsTheirEffects() async throws {
    let composition = try composition(app: "timers", placement: "timers pool 2\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: Timers.State()) {
      composition.compose(Timers())
    } withDependencies: {
      $0.continuousClock = TestClock()
    }
    await store.send(.addTimerTapped) { $0.timers = [Timers.Timer.State(id: 1)] }
    await store.send(.addTimerTapped) { $0.timers.append(Timers.Timer.State(id: 2)) }
    await store.send(.timers(.element(id: 2, action: .tick))) {
      $0.timers[id: 2]?.ticks = 1
      $0.totalTicks = 1
    }
    // The timer's effect sleeps in a worker on a clock nobody advances; removing the element
    // must cancel it there, or `finish` would wait for it in vain.
    await store.send(.timers(.element(id: 1, action: .startTapped))) { $0.timers[id: 1]?.isRunning = true }
    await store.send(.removeTimerTapped(id: 1)) { $0.timers.remove(id: 1) }
    await store.finish()
    #expect(composition.processes.first?.pids.count == 2)
  }

  @Test func aWorkersEffectActionsTakeOneTripEachWhenTheHostAgrees() async throws {
    let composition = try composition(app: "payload", placement: "store\n")
    defer { composition.shutdown() }
    let store = Store(initialState: Payload.State()) { composition.compose(Payload()) }
    await store.send(.store(.stream(count: 50))).finish()
    #expect(store.state.store.streamed == 50)
    #expect(store.state.streamedSeen == 50)
    let statistics = composition.statistics(of: "store")
    // One request for `stream`; each `streamed` came with its outcome, which the host took.
    #expect(statistics?.precomputedActions == 50)
    #expect(statistics?.actions == 51)
  }

  @Test func aTestClockOnTheHostDrivesTheSleepsOfEffectsInWorkers() async throws {
    let clock = TestClock()
    let composition = try composition(app: "timers", placement: "timers pool 2\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: Timers.State()) {
      composition.compose(Timers())
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.addTimerTapped) { $0.timers = [Timers.Timer.State(id: 1)] }
    await store.send(.addTimerTapped) { $0.timers.append(Timers.Timer.State(id: 2)) }
    // When `send` returns, the worker's effect has asked the host to sleep on the test clock.
    await store.send(.timers(.element(id: 1, action: .startTapped))) { $0.timers[id: 1]?.isRunning = true }
    await clock.advance(by: .milliseconds(999))
    await clock.advance(by: .milliseconds(1))
    await store.receive(.timers(.element(id: 1, action: .tick))) {
      $0.timers[id: 1]?.ticks = 1
      $0.totalTicks = 1
    }
    await clock.advance(by: .seconds(1))
    await store.receive(.timers(.element(id: 1, action: .tick))) {
      $0.timers[id: 1]?.ticks = 2
      $0.totalTicks = 2
    }
    await store.send(.timers(.element(id: 1, action: .stopTapped))) { $0.timers[id: 1]?.isRunning = false }
    await store.send(.timers(.element(id: 2, action: .startTapped))) { $0.timers[id: 2]?.isRunning = true }
    await clock.advance(by: .seconds(1))
    await store.receive(.timers(.element(id: 2, action: .tick))) {
      $0.timers[id: 2]?.ticks = 1
      $0.totalTicks = 3
    }
    await store.send(.removeTimerTapped(id: 2)) { $0.timers.remove(id: 2) }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func navigationWithTheDestinationInAWorkerAndTheStackOverAPool() async throws {
    let clock = TestClock()
    let composition = try composition(app: "notes", placement: "destination\npath pool 2\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: Notes.State()) {
      composition.compose(Notes())
    } withDependencies: {
      $0.continuousClock = clock
    }
    // The sheet's save sleeps in its worker on the test clock and dismisses itself from there;
    // the detail's timer ticks in a pool worker and is cancelled there when the detail is popped.
    await ExampleScripts.notes(store, clock: clock)
    // The sheet, the alert, the dialog: each retired its worker when it was dismissed; each
    // popped screen was dropped by the pool worker that held it.
    #expect(composition.statistics(of: "destination")?.workersRetired == 3)
    #expect(composition.statistics(of: "path")?.slotsDropped == 3)
    #expect(composition.processes.first { $0.boundary == "path" }?.pids.count == 2)
  }
}
