import Bulkhead
import BulkheadTesting
import ExampleScripts
import Examples
import Testing

@MainActor
@Suite struct TwoCountersTests {
  @Test func testIndependentCounters() async {
    await ExampleScripts.twoCounters(TestStore(initialState: TwoCounters.State()) { TwoCounters() })
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
    await ExampleScripts.dashboard(TestStore(initialState: Dashboard.State()) { Dashboard() })
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
    await ExampleScripts.loader(store)
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
    await ExampleScripts.detail(TestStore(initialState: DetailPresenter.State()) { DetailPresenter() })
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
    await ExampleScripts.profileSave(store)
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
    await ExampleScripts.itemListConfirmDeletion(TestStore(initialState: ItemList.State(items: ["A", "B"])) { ItemList() })
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
    await ExampleScripts.onboardingLogin(store, token: "t-blob")
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
    await clock.advance(by: .seconds(1))
    await store.receive(.timers(.element(id: 1, action: .tick))) {
      $0.timers[id: 1]?.ticks = 1
      $0.totalTicks = 1
    }
    await store.receive(.timers(.element(id: 2, action: .tick))) {
      $0.timers[id: 2]?.ticks = 1
      $0.totalTicks = 2
    }
    await store.send(.removeTimerTapped(id: 1)) { $0.timers.remove(id: 1) }
    await clock.advance(by: .seconds(1))
    await store.receive(.timers(.element(id: 2, action: .tick))) {
      $0.timers[id: 2]?.ticks = 2
      $0.totalTicks = 3
    }
    await store.send(.timers(.element(id: 2, action: .stopTapped))) { $0.timers[id: 2]?.isRunning = false }
    await store.finish()
  }
}

@MainActor
@Suite struct NotesTests {
  @Test func aSheetAnAlertADialogAndAStackWithEffectsThatDismissThemselves() async {
    let clock = TestClock()
    let store = TestStore(initialState: Notes.State()) {
      Notes()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await ExampleScripts.notes(store, clock: clock)
  }

  @Test func deletingANoteWhoseDetailIsOnTheStackPopsItAndWhatIsAbove() async {
    let store = TestStore(initialState: Notes.State()) { Notes() }
    let welcome = Notes.Note(id: 0, title: "Welcome")
    await store.send(.noteTapped(id: 0)) { $0.path.append(.detail(Notes.Detail.State(note: welcome))) }
    await store.send(.path(.element(id: 0, action: .detail(.infoButtonTapped)))) {
      $0.path.append(.info(Notes.Info.State(note: welcome)))
    }
    await store.send(.deleteButtonTapped(id: 0)) { $0.destination = .alert(.deletion(of: welcome)) }
    await store.send(.destination(.presented(.alert(.confirmDeletion(id: 0))))) {
      $0.destination = nil
      $0.notes = []
      $0.path = []
    }
  }
}

@MainActor
@Suite struct LobbyQuotesTests {
  @Test func theQuoteServersAnswersErrorsCancellationAndStreamFollowTheTestClock() async {
    let clock = TestClock()
    let store = TestStore(initialState: Lobby.State()) { Lobby() } withDependencies: { $0.continuousClock = clock }
    await ExampleScripts.lobbyQuotes(store, clock: clock)
  }
}
