/// A reducer that changes nothing and runs no effect.
///
/// ```swift
/// Scope(state: \.placeholder, action: Action.placeholder) { EmptyReducer() }
/// ```
public struct EmptyReducer<State, Action: Sendable>: Reducer {
  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
}
