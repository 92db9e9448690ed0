extension Reducer {
  /// Runs `reducer` after this one whenever the value that `toValue` reads from the state has
  /// changed, with the old and the new value. Only changes this reducer makes are seen.
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
    _OnChangeReducer(base: self, toValue: toValue, isDuplicate: ==, reducer: reducer)
  }

  /// Runs `reducer` after this one whenever the value that `toValue` reads from the state has
  /// changed, as `isDuplicate` tells: for values that are not `Equatable`, or that compare by
  /// less than all of their fields.
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .onChange(of: \.document, removeDuplicates: { $0.id == $1.id }) { _, document in
  ///     Reduce { state, _ in .send(.open(document.id)) }
  ///   }
  /// ```
  public func onChange<Value, Changed: Reducer<State, Action>>(
    of toValue: @escaping (State) -> Value,
    removeDuplicates isDuplicate: @escaping (Value, Value) -> Bool,
    @ReducerBuilder<State, Action> _ reducer: @escaping (_ oldValue: Value, _ newValue: Value) ->
      Changed
  ) -> _OnChangeReducer<Self, Value, Changed> {
    _OnChangeReducer(base: self, toValue: toValue, isDuplicate: isDuplicate, reducer: reducer)
  }
}

/// The reducer that `onChange` returns.
public struct _OnChangeReducer<Base: Reducer, Value, Changed: Reducer<Base.State, Base.Action>>:
  Reducer
{
  let base: Base
  let toValue: (Base.State) -> Value
  let isDuplicate: (Value, Value) -> Bool
  let reducer: (Value, Value) -> Changed

  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let oldValue = toValue(state)
    let effects = base.reduce(into: &state, action: action)
    let newValue = toValue(state)
    guard !isDuplicate(oldValue, newValue) else { return effects }
    return effects.merge(with: reducer(oldValue, newValue).reduce(into: &state, action: action))
  }
}
