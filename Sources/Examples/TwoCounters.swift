import Bulkhead

/// Two independent counters composed with `Scope`, and parent logic that observes them.
public struct TwoCounters: Reducer {
  public struct State: Equatable, Codable, Sendable {
    public var counter1 = Counter.State()
    public var counter2 = Counter.State()
    /// How many times the parent saw counter 1 increment or counter 2 decrement.
    public var parentObservations = 0
    public init() {}
  }

  public enum Action: Equatable, Codable, Sendable {
    case counter1(Counter.Action)
    case counter2(Counter.Action)
  }

  public init() {}

  public var body: some Reducer<State, Action> {
    Scope(state: \.counter1, action: Action.counter1) { Counter() }
    Scope(state: \.counter2, action: Action.counter2) { Counter() }
    Reduce { state, action in
      switch action {
      case .counter1(.incrementButtonTapped), .counter2(.decrementButtonTapped):
        state.parentObservations += 1
        return .none
      default:
        return .none
      }
    }
  }
}
