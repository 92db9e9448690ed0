import Bulkhead
import BulkheadTesting
import Examples
import Testing

/// The seed examples with their boundaries in worker processes pass the same `TestStore`
/// assertions as in one process.
@MainActor
@Suite(.serialized) struct RemoteExamplesTests {
  @Test func twoCountersWithEachCounterInAWorker() async throws {
    let composition = try composition(app: "two-counters", placement: "counter1\ncounter2\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    await store.send(.counter1(.incrementButtonTapped)) {
      $0.counter1.count = 1
      $0.parentObservations = 1
    }
    await store.send(.counter2(.incrementButtonTapped)) { $0.counter2.count = 1 }
    await store.send(.counter1(.decrementButtonTapped)) { $0.counter1.count = 0 }
    #expect(composition.processes.map(\.boundary) == ["counter1", "counter2"])
    #expect(composition.processes.allSatisfy { $0.pids.count == 1 })
  }

  @Test func dashboardSiblingsInWorkersAndTheParentReactsInTheHost() async throws {
    let composition = try composition(app: "dashboard", placement: "settings\nnotifications\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: Dashboard.State()) { composition.compose(Dashboard()) }
    await store.send(.profile(.nameChanged("Blob"))) { $0.profile.name = "Blob" }
    await store.send(.notifications(.received("Hi"))) { $0.notifications.unread = ["Hi"] }
    // The parent clears the notifications after the settings child ran in its worker; the
    // notifications worker must see the host's change before its next action.
    await store.send(.settings(.notificationsToggled(false))) {
      $0.settings.notificationsEnabled = false
      $0.notifications.unread = []
    }
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
    await store.send(.load) { $0 = .loading }
    await store.receive(.dataLoaded("Draft")) { $0 = .loaded(Loader.Document.State(text: "Draft")) }
    await store.send(.child(.textChanged("Final"))) { $0 = .loaded(Loader.Document.State(text: "Final")) }
    await store.send(.child(.cleared)) { $0 = .loaded(Loader.Document.State(text: "")) }
    #expect(composition.statistics(of: "child")?.actions == 2)
  }

  @Test func anAlertInAWorkerConfirmsTheDeletion() async throws {
    let composition = try composition(app: "item-list", placement: "alert\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: ItemList.State(items: ["A", "B"])) { composition.compose(ItemList()) }
    await store.send(.deleteButtonTapped("A")) {
      $0.pendingDeletion = "A"
      $0.alert = AlertState {
        TextState("Delete A?")
      } actions: {
        ButtonState(role: .destructive, action: .confirmDeletion) { TextState("Delete") }
        ButtonState(role: .cancel) { TextState("Cancel") }
      }
    }
    await store.send(.alert(.presented(.confirmDeletion))) {
      $0.alert = nil
      $0.pendingDeletion = nil
    }
    await store.receive(.confirmDelete("A")) { $0.items = ["B"] }
    #expect(composition.statistics(of: "alert")?.actions == 1)
  }

  @Test func anIfLetChildInAWorkerIsPresentedEditedAndDismissed() async throws {
    let composition = try composition(app: "detail", placement: "detail\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: DetailPresenter.State()) { composition.compose(DetailPresenter()) }
    await store.send(.showDetailTapped) { $0.detail = DetailPresenter.Detail.State(description: "") }
    await store.send(.detail(.descriptionChanged("Notes"))) { $0.detail?.description = "Notes" }
    await store.send(.detail(.closeButtonTapped)) { $0.detail = nil }
    await store.send(.showDetailTapped) { $0.detail = DetailPresenter.Detail.State(description: "") }
    await store.send(.detail(.descriptionChanged("Fresh"))) { $0.detail?.description = "Fresh" }
  }

  @Test func aWorkersEffectActionsGoThroughTheHostsRootReducer() async throws {
    let composition = try composition(app: "profile", placement: "editForm\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: ProfileEditor.State(name: "Blob", email: "blob@example.com")) {
      composition.compose(ProfileEditor())
    }
    await store.send(.editButtonTapped) {
      $0.editForm = ProfileEditor.EditForm.State(name: "Blob", email: "blob@example.com")
    }
    await store.send(.editForm(.nameChanged("Blob Jr"))) { $0.editForm?.name = "Blob Jr" }
    await store.send(.editForm(.saveButtonTapped)) { $0.editForm?.isSaving = true }
    await store.receive(.editForm(.saveResponse(.success))) {
      $0.name = "Blob Jr"
      $0.editForm = nil
    }
  }

  @Test func actionBoundariesAcrossAProcess() async throws {
    let composition = try composition(app: "onboarding", placement: "_internal.login\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: Onboarding.State()) { composition.compose(Onboarding()) }
    await store.send(.view(.startTapped)) { $0.login = Login.State() }
    await store.send(._internal(.login(.view(.usernameChanged("blob"))))) { $0.login?.username = "blob" }
    await store.send(._internal(.login(.view(.onTapLoginButton)))) { $0.login?.isLoggingIn = true }
    await store.receive(._internal(.login(._internal(.loginResult(.success(token: "token-blob")))))) {
      $0.login?.isLoggingIn = false
    }
    await store.receive(._internal(.login(.delegate(.notifyLoginSuccess("token-blob"))))) {
      $0.login = nil
      $0.token = "token-blob"
    }
    await store.receive(.delegate(.finished))
  }

  @Test func forEachElementsAreSpreadOverAPoolAndRemovalCancelsTheirEffects() async throws {
    let composition = try composition(app: "timers", placement: "timers pool 2\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: Timers.State()) { composition.compose(Timers()) }
    await store.send(.addTimerTapped) { $0.timers = [Timers.Timer.State(id: 1)] }
    await store.send(.addTimerTapped) { $0.timers.append(Timers.Timer.State(id: 2)) }
    await store.send(.timers(.element(id: 2, action: .tick))) {
      $0.timers[id: 2]?.ticks = 1
      $0.totalTicks = 1
    }
    // The timer's effect runs in a worker on the live clock; removing the element must cancel
    // it there, or `finish` would wait for it in vain.
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
    clock.advance(by: .milliseconds(999))
    clock.advance(by: .milliseconds(1))
    await store.receive(.timers(.element(id: 1, action: .tick))) {
      $0.timers[id: 1]?.ticks = 1
      $0.totalTicks = 1
    }
    clock.advance(by: .seconds(1))
    await store.receive(.timers(.element(id: 1, action: .tick))) {
      $0.timers[id: 1]?.ticks = 2
      $0.totalTicks = 2
    }
    await store.send(.timers(.element(id: 1, action: .stopTapped))) { $0.timers[id: 1]?.isRunning = false }
    await store.send(.timers(.element(id: 2, action: .startTapped))) { $0.timers[id: 2]?.isRunning = true }
    clock.advance(by: .seconds(1))
    await store.receive(.timers(.element(id: 2, action: .tick))) {
      $0.timers[id: 2]?.ticks = 1
      $0.totalTicks = 3
    }
    await store.send(.removeTimerTapped(id: 2)) { $0.timers.remove(id: 2) }
    clock.advance(by: .seconds(5))
    await store.finish()
  }
}
