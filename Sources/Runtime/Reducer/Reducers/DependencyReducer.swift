extension Reducer {
  /// Runs this reducer, and the effects it creates, with the dependency at `keyPath` set to
  /// `value`.
  ///
  /// ```swift
  /// Timer()
  ///   .dependency(\.continuousClock, ImmediateClock())
  /// ```
  public func dependency<Value: Sendable>(
    _ keyPath: WritableKeyPath<DependencyValues, Value> & Sendable, _ value: Value
  ) -> _DependencyReducer<Self> {
    _DependencyReducer(base: self) { $0[keyPath: keyPath] = value }
  }

  /// Runs this reducer, and the effects it creates, with the dependencies changed by `update`.
  public func transformDependency(
    _ update: @escaping @Sendable (inout DependencyValues) -> Void
  ) -> _DependencyReducer<Self> {
    _DependencyReducer(base: self, update: update)
  }
}

/// The reducer that `dependency(_:_:)` returns.
public struct _DependencyReducer<Base: Reducer>: Reducer {
  let base: Base
  let update: @Sendable (inout DependencyValues) -> Void

  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    withDependencies(update) { base.reduce(into: &state, action: action) }
  }
}
