import Bulkhead
import BulkheadTesting
import Examples
import Testing

@MainActor
@Suite struct TwoCountersTests {
  @Test func testIndependentCounters() async {
    let store = TestStore(initialState: TwoCounters.State()) { TwoCounters() }
    await store.send(.counter1(.incrementButtonTapped)) {
      $0.counter1.count = 1
      $0.parentObservations = 1
    }
    await store.send(.counter2(.incrementButtonTapped)) { $0.counter2.count = 1 }
    await store.send(.counter1(.decrementButtonTapped)) { $0.counter1.count = 0 }
  }

  @Test func theParentSeesTheChildsChangeAfterTheScope() {
    let store = Store(initialState: TwoCounters.State()) { TwoCounters() }
    store.send(.counter2(.decrementButtonTapped))
    #expect(store.state.counter2.count == -1)
    #expect(store.state.parentObservations == 1)
  }
}

@MainActor
@Suite struct DashboardTests {
  @Test func childrenChangeIndependentlyAndTheParentReactsToSettings() async {
    let store = TestStore(initialState: Dashboard.State()) { Dashboard() }
    await store.send(.profile(.nameChanged("Blob"))) { $0.profile.name = "Blob" }
    await store.send(.notifications(.received("Hi"))) { $0.notifications.unread = ["Hi"] }
    await store.send(.settings(.notificationsToggled(false))) {
      $0.settings.notificationsEnabled = false
      $0.notifications.unread = []
    }
  }
}

@MainActor
@Suite struct LoaderTests {
  @Test func loadsThenEditsTheDocumentInTheLoadedCase() async {
    let store = TestStore(initialState: Loader.State.unloaded) {
      Loader()
    } withDependencies: {
      $0.documentLoader = DocumentLoader { "Draft" }
    }
    await store.send(.load) { $0 = .loading }
    await store.receive(.dataLoaded("Draft")) { $0 = .loaded(Loader.Document.State(text: "Draft")) }
    await store.send(.child(.textChanged("Final"))) {
      $0 = .loaded(Loader.Document.State(text: "Final"))
    }
  }

  @Test func aChildActionWhileLoadingIsAWarningThatFailsTheTest() async {
    let store = TestStore(initialState: Loader.State.loading) { Loader() }
    await withKnownIssue {
      await store.send(.child(.cleared))
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("A \"Scope\" at \"Examples/Loader.swift:") }
    }
  }
}

@MainActor
@Suite struct DetailPresenterTests {
  @Test func presentsEditsAndClosesTheDetail() async {
    let store = TestStore(initialState: DetailPresenter.State()) { DetailPresenter() }
    await store.send(.showDetailTapped) { $0.detail = DetailPresenter.Detail.State(description: "") }
    await store.send(.detail(.descriptionChanged("Notes"))) { $0.detail?.description = "Notes" }
    await store.send(.detail(.closeButtonTapped)) { $0.detail = nil }
  }
}

@MainActor
@Suite struct ProfileEditorTests {
  @Test func savingCopiesTheFormAndDismissesTheSheet() async {
    let store = TestStore(initialState: ProfileEditor.State(name: "Blob", email: "blob@example.com")) {
      ProfileEditor()
    } withDependencies: {
      $0.apiClient = APIClient { _, _ in }
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

  @Test func aFailedSaveKeepsTheSheetOpen() async {
    struct Offline: Error {}
    let store = TestStore(
      initialState: ProfileEditor.State(
        name: "Blob", email: "b@example.com",
        editForm: ProfileEditor.EditForm.State(name: "Blob", email: "b@example.com"))
    ) {
      ProfileEditor()
    } withDependencies: {
      $0.apiClient = APIClient { _, _ in throw Offline() }
    }
    await store.send(.editForm(.saveButtonTapped)) { $0.editForm?.isSaving = true }
    await store.receive(.editForm(.saveResponse(.failure("Offline()")))) {
      $0.editForm?.isSaving = false
    }
  }
}

@MainActor
@Suite struct ItemListTests {
  @Test func confirmingTheAlertDeletesTheItemAndDismissesTheAlert() async {
    let store = TestStore(initialState: ItemList.State(items: ["A", "B"])) { ItemList() }
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
  }

  @Test func dismissingTheAlertKeepsTheItem() async {
    let store = TestStore(initialState: ItemList.State(items: ["A"])) { ItemList() }
    store.exhaustivity = .off
    await store.send(.deleteButtonTapped("A"))
    await store.send(.alert(.dismiss)) {
      $0.alert = nil
      $0.pendingDeletion = nil
    }
    #expect(store.state.items == ["A"])
  }
}

@MainActor
@Suite struct ShoutingTextTests {
  @Test func shoutsTheTypedText() async {
    let store = TestStore(initialState: ShoutingText.State()) { ShoutingText() }
    await store.send(.binding(.set(\.text, "hello"))) { $0.text = "hello" }
    await store.send(.didTapShoutButton) { $0.uppercasedText = "HELLO" }
  }

  struct Title: Reducer {
    struct State: Equatable {
      var draft = ""
      var title = ""
    }
    enum Action: Sendable, Equatable {
      case submitted(Int)
      case other
    }
    var body: some Reducer<State, Action> {
      UppercasedReducer(input: \.draft, output: \.title, triggerAction: Action.submitted)
    }
  }

  @Test func theHigherOrderReducerWorksWithACaseWithPayload() {
    var state = Title.State(draft: "draft")
    _ = Title().reduce(into: &state, action: .other)
    #expect(state.title == "")
    _ = Title().reduce(into: &state, action: .submitted(1))
    #expect(state.title == "DRAFT")
  }
}

@MainActor
@Suite struct LoginTests {
  @Test func aSuccessfulLoginTellsTheParentThroughADelegateAction() async {
    let store = TestStore(initialState: Onboarding.State()) {
      Onboarding()
    } withDependencies: {
      $0.authenticator = Authenticator { .success(token: "t-\($0)") }
    }
    await store.send(.view(.startTapped)) { $0.login = Login.State() }
    await store.send(._internal(.login(.view(.usernameChanged("blob"))))) { $0.login?.username = "blob" }
    await store.send(._internal(.login(.view(.onTapLoginButton)))) { $0.login?.isLoggingIn = true }
    await store.receive(._internal(.login(._internal(.loginResult(.success(token: "t-blob")))))) {
      $0.login?.isLoggingIn = false
    }
    await store.receive(._internal(.login(.delegate(.notifyLoginSuccess("t-blob"))))) {
      $0.login = nil
      $0.token = "t-blob"
    }
    await store.receive(.delegate(.finished))
  }

  @Test func actionKindsAreTold() {
    #expect(Login.Action.view(.onTapLoginButton).kind == .view)
    #expect(Login.Action._internal(.loginResult(.failure("x"))).kind == .internal)
    #expect(Login.Action.delegate(.notifyLoginSuccess("t")).kind == .delegate)
  }

  @Test func aFailedLoginStaysInsideTheFeature() async {
    let store = TestStore(initialState: Login.State()) { Login() }
    await store.send(.view(.onTapLoginButton)) { $0.isLoggingIn = true }
    await store.receive(._internal(.loginResult(.failure("A username is required.")))) {
      $0.isLoggingIn = false
      $0.error = "A username is required."
    }
  }
}

@MainActor
@Suite struct TimersTests {
  @Test func timersTickOnTheTestClockAndStopWhenRemoved() async {
    let clock = TestClock()
    let store = TestStore(initialState: Timers.State()) {
      Timers()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.addTimerTapped) { $0.timers = [Timers.Timer.State(id: 1)] }
    await store.send(.addTimerTapped) { $0.timers.append(Timers.Timer.State(id: 2)) }
    await store.send(.timers(.element(id: 1, action: .startTapped))) { $0.timers[id: 1]?.isRunning = true }
    await store.send(.timers(.element(id: 2, action: .startTapped))) { $0.timers[id: 2]?.isRunning = true }
    clock.advance(by: .seconds(1))
    await store.receive(.timers(.element(id: 1, action: .tick))) {
      $0.timers[id: 1]?.ticks = 1
      $0.totalTicks = 1
    }
    await store.receive(.timers(.element(id: 2, action: .tick))) {
      $0.timers[id: 2]?.ticks = 1
      $0.totalTicks = 2
    }
    await store.send(.removeTimerTapped(id: 1)) { $0.timers.remove(id: 1) }
    clock.advance(by: .seconds(1))
    await store.receive(.timers(.element(id: 2, action: .tick))) {
      $0.timers[id: 2]?.ticks = 2
      $0.totalTicks = 3
    }
    await store.send(.timers(.element(id: 2, action: .stopTapped))) { $0.timers[id: 2]?.isRunning = false }
    await store.finish()
  }
}
