@_spi(Testing) import Bulkhead

/// An action as the test store sees it: sent by the test, or received from an effect.
enum TestAction<Action: Sendable>: Sendable {
  case sent(Action)
  case received(Action)
}

/// What the test store's reducer saw; read and written on the main actor only.
@MainActor
final class TestRecorder<State, Action> {
  var received: [(action: Action, state: State)] = []
  var stateAfterSend: State?
}

/// Runs the feature's reducer, recording the state after each action and each action that
/// came from an effect. Its conformance is isolated to the main actor, where stores run.
struct TestReducer<Base: Reducer>: @MainActor Reducer {
  let base: Base
  let recorder: TestRecorder<Base.State, Base.Action>

  @MainActor
  func reduce(
    into state: inout Base.State, action: TestAction<Base.Action>
  ) -> Effect<TestAction<Base.Action>> {
    switch action {
    case let .sent(action):
      let effects = base.reduce(into: &state, action: action)
      recorder.stateAfterSend = state
      return effects.map(TestAction.received)
    case let .received(action):
      let effects = base.reduce(into: &state, action: action)
      recorder.received.append((action, state))
      return effects.map(TestAction.received)
    }
  }
}
