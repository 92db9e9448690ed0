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
  /// and read their own clock; the greeting comes from the host.
  static let lobby = ScriptedApp(
    "lobby", summary: "Dependencies across a boundary: UUIDs, dates, a host-answered greeter",
    initialState: Lobby.State(),
    actions: [.stampTapped, .desk(.sign("Blob")), .desk(.greet("Blob")), .desk(.signFormatted("blob jr"))],
    reducer: Lobby.init)
}
