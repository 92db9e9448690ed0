import Bulkhead

/// A counter: the leaf feature of the Two Counters example.
public struct Counter: Reducer {
  public struct State: Equatable, Codable, Sendable {
    public var count = 0
    public init() {}
    public init(count: Int) { self.count = count }
  }

  public enum Action: Equatable, Codable, Sendable {
    case incrementButtonTapped
    case decrementButtonTapped
  }

  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .incrementButtonTapped:
      state.count += 1
    case .decrementButtonTapped:
      state.count -= 1
    }
    return .none
  }
}
