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
  // The compiler copies and destroys a value of more than about 96 bytes through its type
  // metadata, at many times the cost of the reducer itself; a body built for each action (one
  // that is not kept) is copied and destroyed on every action, and a kept one is loaded by each
  // level that runs it. So a `Scope` stays small: a field path, a case path and a location.
  enum StatePath {
    case field(FieldPath<ParentState, Child.State>)
    case casePath(CasePath<ParentState, Child.State>)
  }

  let toChildState: StatePath
  let toChildAction: CasePath<ParentAction, Child.Action>
  let child: Child
  let location: SourceLocation

  /// Scopes to the struct property at `toChildState` and the actions of case `toChildAction`.
  @inline(__always)
  public init<ChildState, ChildAction>(
    state toChildState: WritableKeyPath<ParentState, ChildState>,
    action toChildAction: CasePath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child,
    fileID: StaticString = #fileID, line: UInt = #line
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.toChildState = .field(FieldPath(toChildState))
    self.toChildAction = toChildAction
    self.child = child()
    self.location = SourceLocation(fileID: fileID, line: line)
  }

  /// Scopes to the struct property at `toChildState` and the actions of case `toChildAction`.
  @inline(__always)
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
  @inline(__always)
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

  // On the path of every action, and small: inlined into the parent's `body`.
  @inline(__always)
  public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
    guard let childAction = toChildAction.extract(from: action) else { return .none }
    // The common case first, binding only a plain offset: binding a payload that holds a
    // reference costs a copy of it, and its release, on every action.
    guard case let .field(.offset(offset)) = toChildState else {
      return reduceElsewhere(into: &state, action: action, childAction: childAction)
    }
    let effect = FieldPath<ParentState, Child.State>.offset(offset).modify(&state) {
      child.reduce(atBoundary: toChildAction.name(in: action), into: &$0, action: childAction)
    }
    // Checked here, before the embed function is copied (a retain) to be passed to `map`.
    return effect.isNone ? .none : effect.mapping(toChildAction.embedder)
  }

  /// A child state reached through a key path or an enum case.
  @inline(never)
  func reduceElsewhere(
    into state: inout ParentState, action: ParentAction, childAction: Child.Action
  ) -> Effect<ParentAction> {
    switch toChildState {
    case let .field(field):
      let effect = field.modify(&state) {
        child.reduce(atBoundary: toChildAction.name(in: action), into: &$0, action: childAction)
      }
      return effect.map(toChildAction.embedder)
    case let .casePath(casePath):
      return reduce(into: &state, at: casePath, action: action, childAction: childAction)
    }
  }

  @inline(never)
  func reduce(
    into state: inout ParentState, at casePath: CasePath<ParentState, Child.State>,
    action: ParentAction, childAction: Child.Action
  ) -> Effect<ParentAction> {
    var effect = Effect<Child.Action>.none
    let found = casePath.modify(&state) {
      effect = child.reduce(
        atBoundary: toChildAction.name(in: action), into: &$0, action: childAction)
    }
    guard found else {
      OperatorWarning.missingChild(
        headline: """
          A "Scope" at \(location) received a child action when child state was set to a \
          different case
          """,
        boundary: toChildAction.name(in: action),
        details: ["Action": "\(action)", "State": "\(state)"],
        causes: [
          """
          The parent changed "\(ParentState.self)" to another case before this "Scope" ran. \
          To fix it, put the "Scope" before the logic that changes the case.
          """,
          """
          An effect of the old case outlived it: a "Scope" never cancels effects. To fix it, \
          use ".ifCaseLet", which cancels the case's effects when the case changes.
          """,
          OperatorWarning.sentFromOutside,
        ], at: location)
      return .none
    }
    return effect.map(toChildAction.embedder)
  }
}
