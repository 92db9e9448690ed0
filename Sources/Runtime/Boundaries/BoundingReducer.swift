/// A reducer for a `FeatureAction`, with one handler per kind of action. Internal and
/// delegate actions are ignored unless the reducer handles them.
///
/// Alone, it is a whole feature. To compose it with children, include `BoundedReduce(self)`
/// in a `body`:
///
/// ```swift
/// struct Login: BoundingReducer {
///   func reduce(into state: inout State, viewAction action: Action.ViewAction) -> Effect<Action> {
///     switch action {
///     case .loginButtonTapped: return .run { send in await send(._internal(.loginResponse(...))) }
///     }
///   }
///   func reduce(into state: inout State, internalAction action: Action.InternalAction) -> Effect<Action> { ... }
/// }
///
/// struct Parent: BoundingReducer {
///   var body: some Reducer<State, Action> {
///     BoundedReduce(self)
///       .ifLet(\.child, action: Action.InternalAction.child) { Child() }
///   }
/// }
/// ```
public protocol BoundingReducer: Reducer where Action: FeatureAction {
  func reduce(into state: inout State, viewAction action: Action.ViewAction) -> Effect<Action>
  func reduce(into state: inout State, internalAction action: Action.InternalAction) -> Effect<Action>
  func reduce(into state: inout State, delegateAction action: Action.DelegateAction) -> Effect<Action>
}

extension BoundingReducer {
  public func reduce(
    into state: inout State, internalAction action: Action.InternalAction
  ) -> Effect<Action> {
    .none
  }

  public func reduce(
    into state: inout State, delegateAction action: Action.DelegateAction
  ) -> Effect<Action> {
    .none
  }
}

extension BoundingReducer where Body == Never {
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    BoundedReduce(self).reduce(into: &state, action: action)
  }
}

/// Sends each action of a `BoundingReducer` to the handler for its kind.
public struct BoundedReduce<Base: BoundingReducer>: Reducer {
  let base: Base

  public init(_ base: Base) { self.base = base }

  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    if let view = CasePath(Base.Action.view).extract(from: action) {
      return base.reduce(into: &state, viewAction: view)
    }
    if let `internal` = CasePath(Base.Action._internal).extract(from: action) {
      return base.reduce(into: &state, internalAction: `internal`)
    }
    if let delegate = CasePath(Base.Action.delegate).extract(from: action) {
      return base.reduce(into: &state, delegateAction: delegate)
    }
    return .none
  }
}

extension Reducer where Action: FeatureAction {
  /// `ifLet` for a child whose actions are one case of this feature's internal actions.
  ///
  /// ```swift
  /// .ifLet(\.child, action: Action.InternalAction.child) { Child() }
  /// ```
  public func ifLet<WrappedState, WrappedAction, Wrapped: Reducer>(
    _ toWrappedState: WritableKeyPath<State, WrappedState?>,
    action toWrappedAction: @escaping @Sendable (WrappedAction) -> Action.InternalAction,
    @ReducerBuilder<WrappedState, WrappedAction> then wrapped: () -> Wrapped,
    fileID: StaticString = #fileID, line: UInt = #line
  ) -> _IfLetReducer<Self, Wrapped>
  where WrappedState == Wrapped.State, WrappedAction == Wrapped.Action {
    ifLet(
      toWrappedState, action: CasePath(Action._internal).appending(toWrappedAction),
      then: wrapped, fileID: fileID, line: line)
  }
}

extension Scope where ParentAction: FeatureAction {
  /// `Scope` for a child whose actions are one case of the parent's internal actions.
  ///
  /// ```swift
  /// Scope(state: \.child, action: Action.InternalAction.child) { Child() }
  /// ```
  public init<ChildState, ChildAction>(
    state toChildState: WritableKeyPath<ParentState, ChildState>,
    action toChildAction: @escaping @Sendable (ChildAction) -> ParentAction.InternalAction,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child,
    fileID: StaticString = #fileID, line: UInt = #line
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(
      state: toChildState, action: CasePath(ParentAction._internal).appending(toChildAction),
      child: child, fileID: fileID, line: line)
  }
}
