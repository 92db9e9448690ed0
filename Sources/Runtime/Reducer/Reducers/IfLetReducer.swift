extension Reducer {
  /// Runs `wrapped` on the optional child state at `toWrappedState` while it is present, for
  /// the actions of case `toWrappedAction`.
  ///
  /// The child runs first, then this reducer, so the parent can dismiss the child after it
  /// handled its action. When the child state becomes nil or is replaced by a child of another
  /// identity, the child's effects are cancelled in the same pass. A child action that arrives
  /// while the state is nil is reported as a runtime warning.
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .ifLet(\.detail, action: Action.detail) { Detail() }
  /// ```
  public func ifLet<WrappedState, WrappedAction, Wrapped: Reducer>(
    _ toWrappedState: WritableKeyPath<State, WrappedState?>,
    action toWrappedAction: @escaping @Sendable (WrappedAction) -> Action,
    @ReducerBuilder<WrappedState, WrappedAction> then wrapped: () -> Wrapped,
    fileID: StaticString = #fileID, line: UInt = #line
  ) -> _IfLetReducer<Self, Wrapped>
  where WrappedState == Wrapped.State, WrappedAction == Wrapped.Action {
    _IfLetReducer(
      parent: self, child: wrapped(), toChildState: toWrappedState,
      toChildAction: CasePath(toWrappedAction), isEphemeral: false,
      location: SourceLocation(fileID: fileID, line: line))
  }

  /// Runs `wrapped` on the optional child state at `toWrappedState` while it is present, for
  /// the actions at the case path `toWrappedAction`.
  public func ifLet<WrappedState, WrappedAction, Wrapped: Reducer>(
    _ toWrappedState: WritableKeyPath<State, WrappedState?>,
    action toWrappedAction: CasePath<Action, WrappedAction>,
    @ReducerBuilder<WrappedState, WrappedAction> then wrapped: () -> Wrapped,
    fileID: StaticString = #fileID, line: UInt = #line
  ) -> _IfLetReducer<Self, Wrapped>
  where WrappedState == Wrapped.State, WrappedAction == Wrapped.Action {
    _IfLetReducer(
      parent: self, child: wrapped(), toChildState: toWrappedState,
      toChildAction: toWrappedAction, isEphemeral: false,
      location: SourceLocation(fileID: fileID, line: line))
  }

  /// Presents ephemeral state such as an alert: no child reducer, and the state is set to nil
  /// after any of its actions, including `.dismiss`: after this reducer (the parent) ran, so
  /// it still sees the alert, and only if the parent did not replace it with another alert.
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .ifLet(\.alert, action: Action.alert)
  /// ```
  public func ifLet<Ephemeral: EphemeralState>(
    _ toEphemeralState: WritableKeyPath<State, Ephemeral?>,
    action toPresentationAction: @escaping @Sendable (PresentationAction<Ephemeral.Action>) ->
      Action,
    fileID: StaticString = #fileID, line: UInt = #line
  ) -> _IfLetReducer<Self, EmptyReducer<Ephemeral, PresentationAction<Ephemeral.Action>>> {
    _IfLetReducer(
      parent: self, child: EmptyReducer(), toChildState: toEphemeralState,
      toChildAction: CasePath(toPresentationAction), isEphemeral: true,
      location: SourceLocation(fileID: fileID, line: line))
  }
}

/// The reducer that `ifLet` returns.
public struct _IfLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
  let parent: Parent
  let child: Child
  let toChildState: WritableKeyPath<Parent.State, Child.State?>
  let toChildAction: CasePath<Parent.Action, Child.Action>
  let isEphemeral: Bool
  let location: SourceLocation

  public func reduce(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    let childEffects = reduceChild(into: &state, action: action)
    let identityBefore = childIdentity(in: state)
    let parentEffects = parent.reduce(into: &state, action: action)
    let identityAfter = childIdentity(in: state)
    if isEphemeral, identityBefore != nil, identityBefore == identityAfter,
      toChildAction.extract(from: action) != nil
    {
      // Dismissed after the parent saw it. Ephemeral state runs no effects: nothing to cancel.
      state[keyPath: toChildState] = nil
    }
    if let identityBefore, identityBefore != identityAfter {
      BoundaryContext.childRemoved(atBoundary: toChildAction.staticName)
    }
    return .childThenParent(
      childEffects, parentEffects, identityBefore: identityBefore, identityAfter: identityAfter)
  }

  private func childIdentity(in state: Parent.State) -> ChildIdentity? {
    state[keyPath: toChildState].map {
      ChildIdentity(of: $0, heldBy: AnyHashableSendable(keyPath: toChildState))
    }
  }

  private func reduceChild(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    guard let childAction = toChildAction.extract(from: action) else { return .none }
    guard let childState = state[keyPath: toChildState] else {
      if !isEphemeral { reportMissingChild(action) }
      return .none
    }
    var path = NavigationPath.current.appending(
      ChildIdentity(of: childState, heldBy: AnyHashableSendable(keyPath: toChildState)))
    let effects = NavigationPath.withCurrent(&path) {
      child.reduce(
        atBoundary: toChildAction.name(in: action), into: &state[keyPath: toChildState]!,
        action: childAction)
    }
    return effects.map(toChildAction.embedder).cancellable(childAt: path)
  }

  private func reportMissingChild(_ action: Parent.Action) {
    OperatorWarning.missingChild(
      headline: """
        An "ifLet" at \(location) received a child action when child state was "nil"
        """,
      boundary: toChildAction.name(in: action), details: ["Action": "\(action)"],
      causes: [
        """
        The parent set the child state to nil before this "ifLet" ran. To fix it, let the child \
        run first: apply ".ifLet" to the reducer that changes the state, which then runs after \
        the child.
        """,
        """
        An effect outlived the child. Effects the child returned are cancelled when this \
        "ifLet" sees the child go; to fix it, give other effects ".cancellable(id:)" and cancel \
        them when the child is dismissed.
        """,
        OperatorWarning.sentFromOutside,
      ], at: location)
  }
}
