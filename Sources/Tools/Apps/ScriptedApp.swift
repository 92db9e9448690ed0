import Bulkhead
import BulkheadDistribution

/// An app the host's command line can run: a root reducer, its initial state, and a script
/// that drives a store of it, printing each action and the state after it.
///
/// ```swift
/// let guestbook = ScriptedApp(
///   "guestbook", summary: "Sign a guestbook in a sheet",
///   initialState: Guestbook.State(),
///   actions: [.signButtonTapped, .composer(.presented(.nameChanged("Blob")))],
///   reducer: Guestbook.init)
/// ```
public struct ScriptedApp: Sendable {
  /// The name that `--app` and a worker's arguments take.
  ///
  /// ```swift
  /// WorkerCommand.thisExecutable(app: ScriptedApp.guestbook.name)
  /// ```
  public let name: String
  /// One line on what the app shows, as `--list` prints it.
  ///
  /// ```swift
  /// print("\(app.name)  \(app.summary)")
  /// ```
  public let summary: String
  /// The app's root reducer, which the host and every worker build alike.
  ///
  /// ```swift
  /// try BoundaryWorker.serve(app.root(), boundary: "composer")
  /// ```
  public let root: @Sendable () -> any Reducer
  private let script:
    @MainActor @Sendable (BoundaryContext?, Hold?, RootObserver?, @escaping @Sendable (String) -> Void) async -> Void
  /// Hands the app's list of actions to a driver; nil for an app with a script of its own.
  private var actionScript: (@MainActor @Sendable (BoundaryContext?, @escaping @Sendable (String) -> Void, any ScriptDriver) async -> Void)? = nil

  /// An app that sends `actions` in turn and logs each and the state after it, and each
  /// action its effects send as it arrives, marked as from an effect, with the state after
  /// it. With `awaitingEffects` (the default), each action's effects finish before the next
  /// is sent, and `./compose.sh send` waits for them too (up to 3 s); without, they run on
  /// beside the next actions and are cancelled when the script ends (or, with `hold` and
  /// `up`, go on), which suits effects that never end, such as timers.
  ///
  /// ```swift
  /// ScriptedApp("counter", summary: "Counts", initialState: Counter.State(), actions: [.incrementButtonTapped], reducer: Counter.init)
  /// ```
  public init<R: Reducer>(
    _ name: String, summary: String, initialState: R.State, actions: [R.Action],
    awaitingEffects: Bool = true, reducer: @escaping @Sendable () -> R
  ) where R.State: Sendable {
    self.init(
      name, summary: summary, initialState: initialState, reducer: reducer, awaitingEffects: awaitingEffects,
      showsEffectActions: true
    ) { store, log, willSend in
      await ActionScript(
        initialState: initialState, actions: actions, awaitingEffects: awaitingEffects, root: reducer(), log: log
      ).play(on: store, willSend: { _ in willSend() })
    }
    actionScript = { context, log, driver in
      await driver.drive(
        ActionScript(
          initialState: initialState, actions: actions, awaitingEffects: awaitingEffects,
          root: Self.root(reducer(), in: context), log: log))
    }
  }

  /// An app whose `script` drives the store itself, logging what it wants shown.
  ///
  /// ```swift
  /// ScriptedApp("echo", summary: "Sends each line of input", initialState: Echo.State(), reducer: Echo.init) {
  ///   store, log in
  ///   while let line = readLine() { store.send(.lineRead(line)); log("state: \(store.state)") }
  /// }
  /// ```
  public init<R: Reducer>(
    _ name: String, summary: String, initialState: R.State, reducer: @escaping @Sendable () -> R,
    script: @escaping @MainActor @Sendable (Store<R.State, R.Action>, _ log: @escaping @Sendable (String) -> Void) async -> Void
  ) where R.State: Sendable {
    self.init(
      name, summary: summary, initialState: initialState, reducer: reducer, awaitingEffects: false,
      showsEffectActions: false
    ) { store, log, _ in await script(store, log) }
  }

  /// An app whose `script` drives the store, calling `willSend` before each action it sends;
  /// `send` waits for the effects of the actions it sends when `awaitingEffects`, as the
  /// script of a list of actions does. With `showsEffectActions`, every action an effect
  /// sends is logged as it arrives, with the state after it.
  private init<R: Reducer>(
    _ name: String, summary: String, initialState: R.State, reducer: @escaping @Sendable () -> R,
    awaitingEffects: Bool, showsEffectActions: Bool,
    script: @escaping @MainActor @Sendable (
      Store<R.State, R.Action>, _ log: @escaping @Sendable (String) -> Void, _ willSend: @escaping () -> Void
    ) async -> Void
  ) where R.State: Sendable {
    self.name = name
    self.summary = summary
    self.root = reducer
    self.script = { context, hold, observer, log in
      let watch =
        showsEffectActions
        ? StepWatch<R.State, R.Action> { action, state, source in
          guard source == .effect else { return }
          log("← \(action) (from an effect)")
          log("state: \(state)")
        } : nil
      let store = Store(initialState: initialState) {
        ObservedRoot(base: Self.watched(Self.root(reducer(), in: context), by: watch), observer: observer)
      }
      log("state: \(initialState)")
      await script(store, log) { watch?.willSend() }
      guard let hold else { return }
      hold.publish(
        StoreConsole(
          store: store, boundaries: reducer().boundaries.map(\.path), awaitingEffects: awaitingEffects,
          willSend: { watch?.willSend() }))
      // Effect actions show themselves, with their states; otherwise each new state is shown.
      await Self.holdOpen(store, showingStates: watch == nil, log: log)
    }
  }

  /// `reducer` with `watch` told of each action it runs; `reducer` itself without one.
  @ReducerBuilder<State, Action>
  private static func watched<State, Action: Sendable>(
    _ reducer: some Reducer<State, Action>, by watch: StepWatch<State, Action>?
  ) -> some Reducer<State, Action> {
    if let watch { WatchedReducer(root: reducer, watch: watch) } else { reducer }
  }

  /// Runs the script in this process, handing each line of output to `log`. With `hold`, the
  /// store lives on after the script, and every state its effects bring is logged, until the
  /// task is cancelled or the process stopped.
  ///
  /// ```swift
  /// await ScriptedApp.guestbook.run { print($0) }
  /// ```
  @MainActor
  public func run(hold: Bool = false, log: @escaping @Sendable (String) -> Void) async {
    await script(nil, hold ? Hold() : nil, nil, log)
  }

  /// Runs the script with the boundaries that `context` places run where its runner says; in
  /// this process when nil. `observer` sees every action the root reducer runs. With `hold`,
  /// the store lives on after the script, published for `send` and `state`.
  @MainActor
  package func run(
    within context: BoundaryContext?, hold: Hold?, observer: RootObserver? = nil,
    log: @escaping @Sendable (String) -> Void
  ) async {
    await script(context, hold, observer, log)
  }

  /// How a store lives on after its script: held open, its effects' states shown, and
  /// handed to `publish` for control calls to reach.
  ///
  /// ```swift
  /// await app.run(within: context, hold: Hold { composition.liveRoot.publish($0) }) { print($0) }
  /// ```
  package struct Hold: Sendable {
    let publish: @MainActor @Sendable (any LiveRoot) -> Void

    package init(publish: @escaping @MainActor @Sendable (any LiveRoot) -> Void = { _ in }) {
      self.publish = publish
    }
  }

  /// Hands the app's list of actions to `driver`, with the boundaries that `context` places
  /// run where its runner says; false, and nothing run, for an app with a script of its own.
  ///
  /// ```swift
  /// let driven = await app.drive(within: nil, by: recorder) { print($0) }
  /// ```
  @MainActor
  package func drive(
    within context: BoundaryContext?, by driver: any ScriptDriver, log: @escaping @Sendable (String) -> Void
  ) async -> Bool {
    guard let actionScript else { return false }
    await actionScript(context, log, driver)
    return true
  }

  /// The boundaries of the app's reducer tree, which a placement can name.
  ///
  /// ```swift
  /// ScriptedApp.guestbook.boundaries.map(\.path)  // ["composer"]
  /// ```
  public var boundaries: [BoundaryDescription] { root().boundaries }
}

extension [ScriptedApp] {
  /// The app called `name`, if there is one.
  ///
  /// ```swift
  /// guard let app = apps.named("guestbook") else { return }
  /// ```
  public func named(_ name: String) -> ScriptedApp? {
    first { $0.name == name }
  }
}
