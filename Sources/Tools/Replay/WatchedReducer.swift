import Bulkhead
import BulkheadDistribution

/// The root reducer with a witness: after each action the store processes, `processed` hears
/// it, the state after it, and who sent it — the script (`outside`) when `willSend` was called
/// just before, an effect otherwise.
///
/// ```swift
/// let watch = StepWatch<State, Action> { action, state, source in print(source, action) }
/// let store = Store(initialState: state) { WatchedReducer(root: root, watch: watch) }
/// watch.willSend()
/// store.send(action)  // prints "outside …", then "effect …" for what its effects send
/// ```
struct WatchedReducer<State, Action: Sendable>: Reducer {
  let root: any Reducer<State, Action>
  let watch: StepWatch<State, Action>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    let effect = root.reduce(into: &state, action: action)
    watch.processed(action, state)
    return effect
  }
}

/// Who sent the action a `WatchedReducer` processes, and what hears about it.
///
/// Only the root store uses it, and a store runs its reducer on the main actor: the flag is
/// never read and written at once.
final class StepWatch<State, Action> {
  private var sendingFromOutside = false
  private let hear: (Action, State, RecordingFormat.Source) -> Void

  init(hear: @escaping (Action, State, RecordingFormat.Source) -> Void) {
    self.hear = hear
  }

  /// The next action the store processes comes from outside: the script sends it now.
  func willSend() { sendingFromOutside = true }

  func processed(_ action: Action, _ state: State) {
    let source: RecordingFormat.Source = sendingFromOutside ? .outside : .effect
    sendingFromOutside = false
    hear(action, state, source)
  }
}
