import Bulkhead

/// A stop of a trip, pushed above the trip's screen: "Visited" tells the trips tab and pops
/// the screen.
///
/// ```swift
/// await store.send(.visitedTapped)
/// await store.receive(.delegate(.visited("Milk")))
/// ```
public struct TripStop: Reducer, Sendable {
  public struct State: Equatable, Codable, Sendable {
    public var name: String
    public init(name: String) { self.name = name }
  }

  public enum Action: Equatable, Codable, Sendable {
    case visitedTapped
    case delegate(Delegate)

    public enum Delegate: Equatable, Codable, Sendable {
      case visited(String)
    }
  }

  @Dependency(\.dismiss) var dismiss

  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .visitedTapped:
      return .run { [dismiss, name = state.name] send in
        await send(.delegate(.visited(name)))
        await dismiss()
      }
    case .delegate:
      return .none
    }
  }
}
