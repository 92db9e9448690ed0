/// Builds a reducer from the reducers listed in a `body`, a `Scope` or a `CombineReducers`,
/// running them top to bottom; `if`, `if`/`else` and `switch` choose among reducers.
///
/// ```swift
/// var body: some Reducer<State, Action> {
///   Scope(state: \.child, action: Action.child) { Child() }
///   if isLoggingEnabled { Logger() }
///   Reduce { state, action in .none }
/// }
/// ```
@resultBuilder
public enum ReducerBuilder<State, Action: Sendable> {
  public static func buildExpression<R: Reducer<State, Action>>(_ reducer: R) -> R { reducer }

  public static func buildBlock() -> EmptyReducer<State, Action> { EmptyReducer() }

  public static func buildPartialBlock<R: Reducer<State, Action>>(first: R) -> R { first }

  public static func buildPartialBlock<R0: Reducer<State, Action>, R1: Reducer<State, Action>>(
    accumulated: R0, next: R1
  ) -> _SequenceReducer<R0, R1> {
    _SequenceReducer(accumulated, next)
  }

  public static func buildOptional<R: Reducer<State, Action>>(_ reducer: R?) -> R? { reducer }

  public static func buildEither<First: Reducer<State, Action>, Second: Reducer<State, Action>>(
    first reducer: First
  ) -> _ConditionalReducer<First, Second> {
    .first(reducer)
  }

  public static func buildEither<First: Reducer<State, Action>, Second: Reducer<State, Action>>(
    second reducer: Second
  ) -> _ConditionalReducer<First, Second> {
    .second(reducer)
  }

  public static func buildLimitedAvailability<R: Reducer<State, Action>>(
    _ reducer: R
  ) -> Reduce<State, Action> {
    Reduce(reducer)
  }

  public static func buildFinalResult<R: Reducer<State, Action>>(_ reducer: R) -> R { reducer }
}

/// Two reducers run one after the other; what a builder makes of consecutive lines.
public struct _SequenceReducer<R0: Reducer, R1: Reducer<R0.State, R0.Action>>: Reducer {
  let first: R0
  let second: R1

  init(_ first: R0, _ second: R1) {
    self.first = first
    self.second = second
  }

  public func reduce(into state: inout R0.State, action: R0.Action) -> Effect<R0.Action> {
    let effect = first.reduce(into: &state, action: action)
    return effect.merge(with: second.reduce(into: &state, action: action))
  }
}

/// One of two reducers, chosen by an `if`/`else` or `switch` in a builder.
public enum _ConditionalReducer<First: Reducer, Second: Reducer<First.State, First.Action>>:
  Reducer
{
  case first(First)
  case second(Second)

  public func reduce(into state: inout First.State, action: First.Action) -> Effect<First.Action> {
    switch self {
    case let .first(reducer): reducer.reduce(into: &state, action: action)
    case let .second(reducer): reducer.reduce(into: &state, action: action)
    }
  }
}

/// A reducer that may be absent: an `if` without `else` in a builder.
extension Optional: Reducer where Wrapped: Reducer {
  public func reduce(
    into state: inout Wrapped.State, action: Wrapped.Action
  ) -> Effect<Wrapped.Action> {
    self?.reduce(into: &state, action: action) ?? .none
  }
}
