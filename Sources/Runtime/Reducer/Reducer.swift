/// A feature's logic: how its state changes for each action, and what effects follow.
///
/// Implement `reduce(into:action:)` for a leaf feature, or `body` to compose others:
///
/// ```swift
/// struct Counter: Reducer {
///   struct State: Equatable { var count = 0 }
///   enum Action: Sendable { case incrementButtonTapped, decrementButtonTapped }
///
///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
///     switch action {
///     case .incrementButtonTapped: state.count += 1
///     case .decrementButtonTapped: state.count -= 1
///     }
///     return .none
///   }
/// }
///
/// struct TwoCounters: Reducer {
///   var body: some Reducer<State, Action> {
///     Scope(state: \.counter1, action: Action.counter1) { Counter() }
///     Scope(state: \.counter2, action: Action.counter2) { Counter() }
///   }
/// }
/// ```
public protocol Reducer<State, Action> {
  associatedtype State
  associatedtype Action: Sendable
  associatedtype Body

  /// Changes `state` for `action` and returns the effects to run next.
  func reduce(into state: inout State, action: Action) -> Effect<Action>

  /// The reducers this one is made of, run in order.
  @ReducerBuilder<State, Action>
  var body: Body { get }
}

extension Reducer where Body == Never {
  public var body: Body {
    fatalError(
      """
      "\(Self.self)" has no "body": it implements "reduce(into:action:)" directly, and its \
      body must not be read.
      """)
  }
}

extension Reducer where Body: Reducer, Body.State == State, Body.Action == Action {
  @inline(__always)
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    body.reduce(into: &state, action: action)
  }
}

/// A reducer for the domain of `R`.
public typealias ReducerOf<R: Reducer> = Reducer<R.State, R.Action>
