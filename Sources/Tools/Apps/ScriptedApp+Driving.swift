import Bulkhead
import BulkheadDistribution

/// Runs an app made from a list of actions in a way of its own: the host's recorder, which
/// sees every action the store processes, and its replayer, which sends the actions a
/// recording holds instead of the list.
///
/// ```swift
/// struct Printer: ScriptDriver {
///   func drive<State: Sendable, Action: Sendable>(_ script: ActionScript<State, Action>) async {
///     let store = Store(initialState: script.initialState) { Reduce(script.root.reduce) }
///     await script.play(on: store)
///   }
/// }
/// ```
package protocol ScriptDriver {
  @MainActor func drive<State: Sendable, Action: Sendable>(_ script: ActionScript<State, Action>) async
}

/// An app's list of actions, with the state its store starts from and the root reducer it
/// runs (composed with the placed boundaries, when there are any).
///
/// ```swift
/// let store = Store(initialState: script.initialState) { Reduce(script.root.reduce) }
/// await script.play(on: store)
/// ```
package struct ActionScript<State: Sendable, Action: Sendable> {
  package let initialState: State
  package let actions: [Action]
  /// Whether each action's effects finish before the next action is sent.
  package let awaitingEffects: Bool
  package let root: any Reducer<State, Action>
  /// Where the lines the script shows go.
  package let log: @Sendable (String) -> Void

  /// Sends the actions in turn, showing each and the state after it (once its effects
  /// finished, when the script awaits them); `willSend` hears each action just before.
  ///
  /// ```swift
  /// await script.play(on: store) { print("sending", $0) }
  /// ```
  @MainActor
  package func play(on store: Store<State, Action>, willSend: (Action) -> Void = { _ in }) async {
    for action in actions {
      log("→ \(action)")
      willSend(action)
      let effects = store.send(action)
      if awaitingEffects { await effects.finish() }
      log("state: \(store.state)")
    }
  }
}

extension ScriptedApp {
  /// `reducer` composed with the boundaries `context` places; `reducer` itself without one.
  @ReducerBuilder<R.State, R.Action>
  static func root<R: Reducer>(_ reducer: R, in context: BoundaryContext?) -> some Reducer<R.State, R.Action> {
    if let context { _ComposedReducer(base: reducer, context: context) } else { reducer }
  }

  /// Keeps `store` alive after its script, showing every state its effects bring (unless
  /// something else shows them), until the task is cancelled or the process stopped.
  ///
  /// ```swift
  /// await ScriptedApp.holdOpen(store) { print($0) }
  /// ```
  @MainActor
  package static func holdOpen<State, Action>(
    _ store: Store<State, Action>, showingStates: Bool = true, log: @escaping @Sendable (String) -> Void
  ) async {
    log("holding: effects go on until the process is stopped")
    if showingStates { store.observe { log("state: \($0)") } }
    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
  }
}
