extension Reducer {
  /// Runs `case` on one case of an enum state while the state has that case, for the actions
  /// of case `toCaseAction`.
  ///
  /// The child runs first, then this reducer. When the state leaves the case, or moves to the
  /// case with a child of another identity, the child's effects are cancelled in the same
  /// pass. A child action that arrives while the state has another case is reported as a
  /// runtime warning.
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .ifCaseLet(State.loggedIn, action: Action.loggedIn) { LoggedIn() }
  /// ```
  public func ifCaseLet<CaseState, CaseAction, Case: Reducer>(
    _ toCaseState: @escaping @Sendable (CaseState) -> State,
    action toCaseAction: @escaping @Sendable (CaseAction) -> Action,
    @ReducerBuilder<CaseState, CaseAction> then case: () -> Case,
    fileID: StaticString = #fileID, line: UInt = #line
  ) -> _IfCaseLetReducer<Self, Case>
  where CaseState == Case.State, CaseAction == Case.Action {
    _IfCaseLetReducer(
      parent: self, child: `case`(), toChildState: CasePath(toCaseState),
      toChildAction: CasePath(toCaseAction), location: SourceLocation(fileID: fileID, line: line))
  }
}

/// The reducer that `ifCaseLet` returns.
public struct _IfCaseLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
  let parent: Parent
  let child: Child
  let toChildState: CasePath<Parent.State, Child.State>
  let toChildAction: CasePath<Parent.Action, Child.Action>
  let location: SourceLocation

  public func reduce(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    let childEffects = reduceChild(into: &state, action: action)
    let identityBefore = childIdentity(in: state)
    let parentEffects = parent.reduce(into: &state, action: action)
    let identityAfter = childIdentity(in: state)
    if let identityBefore, identityBefore != identityAfter {
      BoundaryContext.childRemoved(atBoundary: toChildAction.staticName)
    }
    return .childThenParent(
      childEffects, parentEffects, identityBefore: identityBefore, identityAfter: identityAfter)
  }

  private func childIdentity(in state: Parent.State) -> ChildIdentity? {
    toChildState.extract(from: state).map { ChildIdentity(of: $0, heldBy: AnyHashableSendable(location)) }
  }

  private func reduceChild(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    guard let childAction = toChildAction.extract(from: action) else { return .none }
    guard let identity = childIdentity(in: state) else {
      OperatorWarning.missingChild(
        headline: """
          An "ifCaseLet" at \(location) received a child action when child state was set to a \
          different case
          """,
        boundary: toChildAction.name(in: action),
        details: ["Action": "\(action)", "State": "\(state)"],
        causes: [
          """
          The parent changed "\(Parent.State.self)" to another case before this "ifCaseLet" \
          ran. To fix it, let the child run first: apply ".ifCaseLet" to the reducer that \
          changes the case.
          """,
          """
          An effect outlived the case. Effects the child returned are cancelled when this \
          "ifCaseLet" sees the case change; to fix it, give other effects \
          ".cancellable(id:)" and cancel them when the case changes.
          """,
          OperatorWarning.sentFromOutside,
        ], at: location)
      return .none
    }
    var path = NavigationPath.current.appending(identity)
    var effects = Effect<Child.Action>.none
    NavigationPath.withCurrent(&path) {
      toChildState.modify(&state) {
        effects = child.reduce(
          atBoundary: toChildAction.name(in: action), into: &$0, action: childAction)
      }
    }
    return effects.map(toChildAction.embedder).cancellable(childAt: path)
  }
}
