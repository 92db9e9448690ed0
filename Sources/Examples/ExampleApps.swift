import Bulkhead

/// A runnable demonstration of one example feature: a scripted sequence of actions sent to a
/// store, each printed with the state that followed.
public struct ExampleApp: Sendable {
  /// The name `compose.sh run` and `parent-host --app` take.
  public let name: String
  /// One line on what the app shows.
  public let summary: String
  /// The app's root reducer, which the host and every worker build alike.
  public let root: @Sendable () -> any Reducer
  private let script:
    @MainActor @Sendable (
      _ composition: Composition?, _ hold: Bool, _ log: @escaping (String) -> Void
    ) async -> Void

  /// An app that sends `actions` in turn; with `awaitingEffects`, each action's effects
  /// finish before the next is sent, otherwise they run on and are cancelled at the end.
  init<R: Reducer>(
    _ name: String, _ summary: String, initialState: R.State, actions: [R.Action],
    awaitingEffects: Bool = true, reducer: @escaping @Sendable () -> R
  ) where R.State: Sendable {
    self.name = name
    self.summary = summary
    self.root = reducer
    self.script = { composition, hold, log in
      let store = Store(initialState: initialState) {
        if let composition { composition.compose(reducer()) } else { reducer() }
      }
      log("state: \(initialState)")
      for action in actions {
        log("→ \(action)")
        let effects = store.send(action)
        if awaitingEffects { await effects.finish() }
        log("state: \(store.state)")
      }
      guard hold else { return }
      log("holding: effects go on until the process is stopped")
      store.observe { log("state: \($0)") }
      while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }
  }

  /// Runs the script, handing each line of output to `log`; with `composition`, the boundaries
  /// it places run in its workers. With `hold`, the store lives on after the script, and every
  /// state its effects bring is logged, until the task is cancelled or the process stopped.
  @MainActor
  public func run(
    in composition: Composition? = nil, hold: Bool = false, log: @escaping (String) -> Void
  ) async {
    await script(composition, hold, log)
  }

  /// The boundaries of the app's reducer tree, which a placement can name.
  public var boundaries: [BoundaryDescription] { root().boundaries }

  /// Every example app, in the order `compose.sh list` shows them.
  public static let all: [ExampleApp] = [
    ExampleApp(
      "two-counters", "Two Counters: two Scopes and parent logic after them",
      initialState: TwoCounters.State(),
      actions: [
        .counter1(.incrementButtonTapped), .counter2(.incrementButtonTapped),
        .counter1(.decrementButtonTapped), .counter2(.decrementButtonTapped),
      ], reducer: TwoCounters.init),
    ExampleApp(
      "dashboard", "Three sibling Scopes: profile, settings, notifications",
      initialState: Dashboard.State(),
      actions: [
        .profile(.nameChanged("Blob")), .notifications(.received("Welcome")),
        .settings(.notificationsToggled(false)),
      ], reducer: Dashboard.init),
    ExampleApp(
      "loader", "Scope on enum state: unloaded, loading, loaded",
      initialState: Loader.State.unloaded,
      actions: [.load, .child(.textChanged("Edited"))], reducer: Loader.init),
    ExampleApp(
      "detail", "ifLet: present, edit and close a detail",
      initialState: DetailPresenter.State(),
      actions: [.showDetailTapped, .detail(.descriptionChanged("Notes")), .detail(.closeButtonTapped)],
      reducer: DetailPresenter.init),
    ExampleApp(
      "profile", "ifLet sheet with a save effect",
      initialState: ProfileEditor.State(name: "Blob", email: "blob@example.com"),
      actions: [.editButtonTapped, .editForm(.nameChanged("Blob Jr")), .editForm(.saveButtonTapped)],
      reducer: ProfileEditor.init),
    ExampleApp(
      "item-list", "An alert presented with the ephemeral ifLet",
      initialState: ItemList.State(items: ["Milk", "Eggs"]),
      actions: [.deleteButtonTapped("Milk"), .alert(.presented(.confirmDeletion))],
      reducer: ItemList.init),
    ExampleApp(
      "shouting-text", "The UppercasedReducer higher-order reducer",
      initialState: ShoutingText.State(),
      actions: [.binding(.set(\.text, "hello")), .didTapShoutButton], reducer: ShoutingText.init),
    ExampleApp(
      "onboarding", "Action boundaries: view, internal and delegate actions",
      initialState: Onboarding.State(),
      actions: [
        .view(.startTapped), ._internal(.login(.view(.usernameChanged("blob")))),
        ._internal(.login(.view(.onTapLoginButton))),
      ], reducer: Onboarding.init),
    ExampleApp(
      "timers", "forEach over timers; removing one cancels its effect",
      initialState: Timers.State(),
      actions: [
        .addTimerTapped, .addTimerTapped, .timers(.element(id: 1, action: .startTapped)),
        .removeTimerTapped(id: 1), .timers(.element(id: 2, action: .tick)),
        .timers(.element(id: 2, action: .startTapped)),
      ], awaitingEffects: false, reducer: Timers.init),
    ExampleApp(
      "race", "Effects waking at the same instant cancel one another; one is in a child",
      initialState: Race.State(count: 3, plan: [0: .effect(2), 1: .child]), actions: [.begin],
      reducer: Race.init),
    ExampleApp(
      "notes", "Navigation: a sheet, an alert and a dialog as one destination, and a stack",
      initialState: Notes.State(),
      actions: [
        .addButtonTapped, .destination(.presented(.editor(.titleChanged("Groceries")))),
        .destination(.presented(.editor(.saveButtonTapped))), .noteTapped(id: 1),
        .path(.element(id: 0, action: .detail(.bodyChanged("Milk, eggs, bread")))),
        .path(.element(id: 0, action: .detail(.infoButtonTapped))),
        .path(.element(id: 1, action: .info(.closeButtonTapped))),
        .path(.element(id: 0, action: .detail(.doneButtonTapped))), .deleteButtonTapped(id: 0),
        .destination(.presented(.alert(.confirmDeletion(id: 0)))), .clearButtonTapped,
        .destination(.dismiss),
      ], reducer: Notes.init),
    ExampleApp(
      "payload", "For studying boundaries: a 100,000-item child state, small changes, a stream",
      initialState: Payload.State(items: 100_000),
      actions: [.store(.bump), .store(.bump), .store(.stream(count: 3))],
      reducer: Payload.init),
    .guestbook,
  ]

  /// The app called `name`, if there is one.
  public static func named(_ name: String) -> ExampleApp? {
    all.first { $0.name == name }
  }
}
