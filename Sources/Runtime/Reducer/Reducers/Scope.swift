/// Runs a child reducer on a part of the parent's state and on the parent's actions for that
/// child.
///
/// On a struct property, name the state by key path; on one case of an enum state, by the
/// case. Put `Scope` before the parent's own logic so the child sees its actions first.
///
/// ```swift
/// Scope(state: \.counter1, action: Action.counter1) { Counter() }
/// Scope(state: State.loaded, action: Action.child) { Child() }
/// ```
public struct Scope<ParentState, ParentAction: Sendable, Child: Reducer>: Reducer {
  enum StatePath {
    case keyPath(WritableKeyPath<ParentState, Child.State>)
    case casePath(CasePath<ParentState, Child.State>)
  }

  let toChildState: StatePath
  let toChildAction: CasePath<ParentAction, Child.Action>
  let child: Child
  let location: SourceLocation

  /// Scopes to the struct property at `toChildState` and the actions of case `toChildAction`.
  public init<ChildState, ChildAction>(
    state toChildState: WritableKeyPath<ParentState, ChildState>,
    action toChildAction: CasePath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child,
    fileID: StaticString = #fileID, line: UInt = #line
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.toChildState = .keyPath(toChildState)
    self.toChildAction = toChildAction
    self.child = child()
    self.location = SourceLocation(fileID: fileID, line: line)
  }

  /// Scopes to the struct property at `toChildState` and the actions of case `toChildAction`.
  public init<ChildState, ChildAction>(
    state toChildState: WritableKeyPath<ParentState, ChildState>,
    action toChildAction: @escaping @Sendable (ChildAction) -> ParentAction,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child,
    fileID: StaticString = #fileID, line: UInt = #line
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(
      state: toChildState, action: CasePath(toChildAction), child: child, fileID: fileID,
      line: line)
  }

  /// Scopes to the enum state case `toChildState` and the actions of case `toChildAction`.
  ///
  /// A child action that arrives while the state is in another case is reported as a runtime
  /// warning and ignored.
  public init<ChildState, ChildAction>(
    state toChildState: @escaping @Sendable (ChildState) -> ParentState,
    action toChildAction: @escaping @Sendable (ChildAction) -> ParentAction,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child,
    fileID: StaticString = #fileID, line: UInt = #line
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.toChildState = .casePath(CasePath(toChildState))
    self.toChildAction = CasePath(toChildAction)
    self.child = child()
    self.location = SourceLocation(fileID: fileID, line: line)
  }

  public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
    guard let childAction = toChildAction.extract(from: action) else { return .none }
    switch toChildState {
    case let .keyPath(keyPath):
      return child.reduce(
        atBoundary: toChildAction.name(in: action), into: &state[keyPath: keyPath],
        action: childAction
      ).map(toChildAction.embedder)
    case let .casePath(casePath):
      var effect = Effect<Child.Action>.none
      let found = casePath.modify(&state) {
        effect = child.reduce(
          atBoundary: toChildAction.name(in: action), into: &$0, action: childAction)
      }
      guard found else {
        RuntimeWarning.report(
          """
          A "Scope" at \(location) received a child action when child state was set to a \
          different case. …

            Action:
              \(action)
            State:
              \(state)

          This is generally considered an application logic error, and can happen for a few \
          reasons:

          • A parent reducer set "\(ParentState.self)" to a different case before the scoped \
          reducer ran. Child reducers must run before any parent reducer sets child state to a \
          different case. This ensures that child reducers can handle their actions while \
          their state is still available.

          • An in-flight effect emitted this action when child state was unavailable. While \
          it may be perfectly reasonable to ignore this action, consider canceling the \
          associated effect before child state changes to another case, especially if it is a \
          long-living effect.

          • This action was sent to the store while state was another case. Make sure that \
          actions for this reducer can only be sent from a view store when state is set to \
          the appropriate case.
          """, at: location)
        return .none
      }
      return effect.map(toChildAction.embedder)
    }
  }
}
