extension Reducer {
  /// Runs `reducer` after this one whenever the value that `toValue` reads from the state has
  /// changed, with the old and the new value.
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .onChange(of: \.query) { oldQuery, newQuery in
  ///     Reduce { state, _ in .send(.search(newQuery)) }
  ///   }
  /// ```
  public func onChange<Value: Equatable, Changed: Reducer<State, Action>>(
    of toValue: @escaping (State) -> Value,
    @ReducerBuilder<State, Action> _ reducer: @escaping (_ oldValue: Value, _ newValue: Value) ->
      Changed
  ) -> _OnChangeReducer<Self, Value, Changed> {
    _OnChangeReducer(base: self, toValue: toValue, reducer: reducer)
  }
}

/// The reducer that `onChange` returns.
public struct _OnChangeReducer<Base: Reducer, Value: Equatable, Changed: Reducer<Base.State, Base.Action>>:
  Reducer
{
  let base: Base
  let toValue: (Base.State) -> Value
  let reducer: (Value, Value) -> Changed

  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let oldValue = toValue(state)
    let effects = base.reduce(into: &state, action: action)
    let newValue = toValue(state)
    guard oldValue != newValue else { return effects }
    return effects.merge(with: reducer(oldValue, newValue).reduce(into: &state, action: action))
  }
}
