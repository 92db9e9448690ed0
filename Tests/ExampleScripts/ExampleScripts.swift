import BulkheadTesting
import Examples

/// The seed examples' `TestStore` scripts, run by the in-process tests and again by the tests
/// that place the examples' boundaries in worker processes: the same assertions, wherever the
/// boundaries run.
///
/// ```swift
/// let store = TestStore(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
/// await ExampleScripts.twoCounters(store)
/// ```
@MainActor
public enum ExampleScripts {
  /// Each counter changes alone; the parent observes counter 1.
  public static func twoCounters(_ store: TestStore<TwoCounters.State, TwoCounters.Action>) async {
    await store.send(.counter1(.incrementButtonTapped)) {
      $0.counter1.count = 1
      $0.parentObservations = 1
    }
    await store.send(.counter2(.incrementButtonTapped)) { $0.counter2.count = 1 }
    await store.send(.counter1(.decrementButtonTapped)) { $0.counter1.count = 0 }
  }

  /// Siblings change alone, and the parent clears the notifications when they are turned off.
  public static func dashboard(_ store: TestStore<Dashboard.State, Dashboard.Action>) async {
    await store.send(.profile(.nameChanged("Blob"))) { $0.profile.name = "Blob" }
    await store.send(.notifications(.received("Hi"))) { $0.notifications.unread = ["Hi"] }
    await store.send(.settings(.notificationsToggled(false))) {
      $0.settings.notificationsEnabled = false
      $0.notifications.unread = []
    }
  }

  /// Loads a document whose loader returns "Draft", then edits it in the loaded case.
  public static func loader(_ store: TestStore<Loader.State, Loader.Action>) async {
    await store.send(.load) { $0 = .loading }
    await store.receive(.dataLoaded("Draft")) { $0 = .loaded(Loader.Document.State(text: "Draft")) }
    await store.send(.child(.textChanged("Final"))) {
      $0 = .loaded(Loader.Document.State(text: "Final"))
    }
  }

  /// Presents the detail, edits it, and closes it.
  public static func detail(_ store: TestStore<DetailPresenter.State, DetailPresenter.Action>) async {
    await store.send(.showDetailTapped) { $0.detail = DetailPresenter.Detail.State(description: "") }
    await store.send(.detail(.descriptionChanged("Notes"))) { $0.detail?.description = "Notes" }
    await store.send(.detail(.closeButtonTapped)) { $0.detail = nil }
  }

  /// Edits the profile of "Blob" in the sheet and saves it; a save that succeeds dismisses it.
  public static func profileSave(_ store: TestStore<ProfileEditor.State, ProfileEditor.Action>) async {
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

  /// Asks to delete "A" of ["A", "B"] and confirms.
  public static func itemListConfirmDeletion(_ store: TestStore<ItemList.State, ItemList.Action>) async {
    await store.send(.deleteButtonTapped("A")) {
      $0.pendingDeletion = "A"
      $0.alert = .deletion(of: "A")
    }
    await store.send(.alert(.presented(.confirmDeletion))) {
      $0.alert = nil
      $0.pendingDeletion = nil
    }
    await store.receive(.confirmDelete("A")) { $0.items = ["B"] }
  }

  /// Logs "blob" in; the authenticator answers `token`, and the parent hears of it through a
  /// delegate action.
  public static func onboardingLogin(_ store: TestStore<Onboarding.State, Onboarding.Action>, token: String) async {
    await store.send(.view(.startTapped)) { $0.login = Login.State() }
    await store.send(._internal(.login(.view(.usernameChanged("blob"))))) { $0.login?.username = "blob" }
    await store.send(._internal(.login(.view(.onTapLoginButton)))) { $0.login?.isLoggingIn = true }
    await store.receive(._internal(.login(._internal(.loginResult(.success(token: token)))))) {
      $0.login?.isLoggingIn = false
    }
    await store.receive(._internal(.login(.delegate(.notifyLoginSuccess(token))))) {
      $0.login = nil
      $0.token = token
    }
    await store.receive(.delegate(.finished))
  }
}
