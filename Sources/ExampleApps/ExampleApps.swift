import Bulkhead
import BulkheadTools
import Examples

/// The seed programs as apps that `parent-host`, `child-worker`, the tests and the benchmark
/// share: each sends a scripted sequence of actions to a store and prints the states.
public enum ExampleApp {
  /// Every example app, in the order `compose.sh list` shows them.
  public static let all: [ScriptedApp] = [
    ScriptedApp(
      "two-counters", summary: "Two Counters: two Scopes and parent logic after them",
      initialState: TwoCounters.State(),
      actions: [
        .counter1(.incrementButtonTapped), .counter2(.incrementButtonTapped),
        .counter1(.decrementButtonTapped), .counter2(.decrementButtonTapped),
      ], reducer: TwoCounters.init),
    ScriptedApp(
      "dashboard", summary: "Three sibling Scopes: profile, settings, notifications",
      initialState: Dashboard.State(),
      actions: [
        .profile(.nameChanged("Blob")), .notifications(.received("Welcome")),
        .settings(.notificationsToggled(false)),
      ], reducer: Dashboard.init),
    ScriptedApp(
      "loader", summary: "Scope on enum state: unloaded, loading, loaded",
      initialState: Loader.State.unloaded,
      actions: [.load, .child(.textChanged("Edited"))], reducer: Loader.init),
    ScriptedApp(
      "detail", summary: "ifLet: present, edit and close a detail",
      initialState: DetailPresenter.State(),
      actions: [.showDetailTapped, .detail(.descriptionChanged("Notes")), .detail(.closeButtonTapped)],
      reducer: DetailPresenter.init),
    ScriptedApp(
      "profile", summary: "ifLet sheet with a save effect",
      initialState: ProfileEditor.State(name: "Blob", email: "blob@example.com"),
      actions: [.editButtonTapped, .editForm(.nameChanged("Blob Jr")), .editForm(.saveButtonTapped)],
      reducer: ProfileEditor.init),
    ScriptedApp(
      "item-list", summary: "An alert presented with the ephemeral ifLet",
      initialState: ItemList.State(items: ["Milk", "Eggs"]),
      actions: [.deleteButtonTapped("Milk"), .alert(.presented(.confirmDeletion))],
      reducer: ItemList.init),
    ScriptedApp(
      "shouting-text", summary: "The UppercasedReducer higher-order reducer",
      initialState: ShoutingText.State(),
      actions: [.binding(.set(\.text, "hello")), .didTapShoutButton], reducer: ShoutingText.init),
    ScriptedApp(
      "onboarding", summary: "Action boundaries: view, internal and delegate actions",
      initialState: Onboarding.State(),
      actions: [
        .view(.startTapped), ._internal(.login(.view(.usernameChanged("blob")))),
        ._internal(.login(.view(.onTapLoginButton))),
      ], reducer: Onboarding.init),
    ScriptedApp(
      "timers", summary: "forEach over timers; removing one cancels its effect",
      initialState: Timers.State(),
      actions: [
        .addTimerTapped, .addTimerTapped, .timers(.element(id: 1, action: .startTapped)),
        .removeTimerTapped(id: 1), .timers(.element(id: 2, action: .tick)),
        .timers(.element(id: 2, action: .startTapped)),
      ], awaitingEffects: false, reducer: Timers.init),
    ScriptedApp(
      "race", summary: "Effects waking at the same instant cancel one another; one is in a child",
      initialState: Race.State(count: 3, plan: [0: .effect(2), 1: .child]), actions: [.begin],
      reducer: Race.init),
    ScriptedApp(
      "notes", summary: "Navigation: a sheet, an alert and a dialog as one destination, and a stack",
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
    ScriptedApp(
      "payload", summary: "For studying boundaries: a 100,000-item child state, small changes, a stream",
      initialState: Payload.State(items: 100_000),
      actions: [.store(.bump), .store(.bump), .store(.stream(count: 3))],
      reducer: Payload.init),
    .lobby,
    ScriptedApp(
      "account", summary: "Nested Scopes: an avatar inside a profile, placeable two levels deep",
      initialState: Account.State(),
      actions: [
        .profile(.nameChanged("Blob")), .profile(.avatar(.edited)), .profile(.avatar(.uploadTapped)),
      ], reducer: Account.init),
    .errands,
    ScriptedApp(
      "runaway", summary: "For studying limits: children that leak memory, spin a core, open descriptors",
      initialState: Runaway.State(),
      actions: [
        .steady(.incrementButtonTapped), .opener(.exhaust(most: 200)), .spinner(.spin(milliseconds: 300)),
        .hog(.grow(megabytes: 32)), .hog(.grow(megabytes: 32)), .hog(.grow(megabytes: 32)), .hog(.grow(megabytes: 32)),
        .steady(.incrementButtonTapped),
      ], reducer: Runaway.init),
  ]

  /// The example app called `name`, if there is one.
  public static func named(_ name: String) -> ScriptedApp? {
    all.named(name)
  }
}

extension ScriptedApp {
  /// The lobby, run live: the host and the desk's worker each make their own random UUIDs
  /// and read their own clock; the greeting comes from the host, and so do the quote server's
  /// answers (`async` calls, each after the server's latency), a quote and an unknown guest's error.
  static let lobby = ScriptedApp(
    "lobby", summary: "Dependencies across a boundary: UUIDs, dates, a host-answered greeter, an async quote client",
    initialState: Lobby.State(),
    actions: [
      .stampTapped, .desk(.sign("Blob")), .desk(.greet("Blob")), .desk(.signFormatted("blob jr")),
      .desk(.quoteTapped("Blob")), .desk(.quoteTapped("?Nobody")),
    ],
    reducer: Lobby.init)
}

extension ScriptedApp {
  /// The errands app through each of its tabs, live, as `ExampleScripts.errands` tests it:
  /// the server refuses a row's save, the detail's save and a trip's route once each, and the
  /// script answers each alert with "Try again". Latencies and refusals come from each
  /// question (`FakeServer`), the pauses and the server's answers from the clock.
  static let errands = ScriptedApp(
    "errands", summary: "Shaped like a real app: tabs, saving rows, a sheet, a stack, an async API, timers",
    initialState: Errands.State(),
    actions: [
      .list(.view(.addButtonTapped(title: "Stamps"))),
      .list(.rows(.element(id: 0, action: .view(.titleChanged("Oat milk"))))),
      .list(.destination(.presented(.alert(.retrySave(id: 0))))),
      .list(.view(.errandTapped(id: 1))),
      .list(.destination(.presented(.detail(.checklist(.addItemTapped("Wholemeal")))))),
      .list(.destination(.presented(.detail(.checklist(.itemToggled(id: 0)))))),
      .list(.destination(.presented(.detail(.view(.saveTapped))))),
      .list(.destination(.presented(.detail(.alert(.presented(.retrySaveTapped)))))),
      .tabSelected(.trips), .trips(.view(.planTripTapped)),
      .trips(.path(.element(id: 0, action: .trip(.view(.task))))),
      .trips(.path(.element(id: 0, action: .trip(.alert(.presented(.retryTapped)))))),
      .trips(.path(.element(id: 0, action: .trip(.view(.stopTapped("Stamps")))))),
      .trips(.path(.element(id: 1, action: .stop(.visitedTapped)))),
      .trips(.path(.element(id: 0, action: .trip(.view(.finishTapped))))),
      .tabSelected(.sync), .sync(.view(.syncNowTapped)),
    ], reducer: Errands.init)
}
