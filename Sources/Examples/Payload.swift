import Bulkhead

/// A feature for studying boundaries: a child whose state can be made large, an action that
/// changes one small field of it, and an effect that streams actions back.
public struct Payload: Reducer {
  public struct State: Equatable, Codable, Sendable {
    public var store = Store.State()
    /// How many streamed actions the parent saw.
    public var streamedSeen = 0
    /// Whether the parent bumps the child itself each time it sees a streamed action, so that
    /// the child's copy in a worker is behind the host's before the next one.
    public var parentBumpsOnStream = false
    public init(items: Int = 0) { store = Store.State(items: items) }
  }

  public enum Action: Equatable, Codable, Sendable {
    case store(Store.Action)
    case parentBumpsOnStream(Bool)
  }

  public init() {}

  public var body: some Reducer<State, Action> {
    Scope(state: \.store, action: Action.store) { Store() }
    Reduce { state, action in
      switch action {
      case .store(.streamed):
        state.streamedSeen += 1
        if state.parentBumpsOnStream { state.store.bumps += 1 }
      case .store:
        break
      case let .parentBumpsOnStream(isOn):
        state.parentBumpsOnStream = isOn
      }
      return .none
    }
  }

  /// The child: a large array, a small counter, and a stream.
  public struct Store: Reducer {
    public struct State: Equatable, Codable, Sendable, CustomStringConvertible {
      public var items: [Int]
      public var bumps = 0
      public var streamed = 0
      public init(items: Int = 0) { self.items = Array(0..<items) }

      public var description: String {
        "Store.State(items: \(items.count) items, bumps: \(bumps), streamed: \(streamed))"
      }
    }

    public enum Action: Equatable, Codable, Sendable {
      /// Changes one small field.
      case bump
      /// Starts an effect that sends `streamed` this many times.
      case stream(count: Int)
      case streamed
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .bump:
        state.bumps += 1
        return .none
      case let .stream(count):
        return .run { send in
          for _ in 0..<count { await send(.streamed) }
        }
      case .streamed:
        state.streamed += 1
        return .none
      }
    }
  }
}
