extension Reducer {
  /// Runs `destination` on the state presented at `toPresentationState` while it is there, for
  /// the `.presented` actions of case `toPresentationAction`.
  ///
  /// - `.presented(action)`: the destination runs first, then this reducer. A destination that
  ///   is ephemeral (an alert or confirmation dialog, or an enum case holding one) is then
  ///   dismissed, unless this reducer presented another one, or the action was for another
  ///   case of the destination (which is a runtime warning of that case's `Scope`).
  /// - `.dismiss`: this reducer runs first, still seeing the destination, which is then
  ///   removed, unless this reducer presented another one.
  /// - When the destination is removed or replaced by one of another identity (here or, found
  ///   at the next action, by any other reducer), its effects are cancelled.
  /// - An effect of the destination can call `dismiss()` (`@Dependency(\.dismiss)`), which
  ///   sends `.dismiss` through this reducer.
  /// - A presentation action while nothing is presented is a runtime warning.
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .ifLet(\.$destination, action: Action.destination) { Destination() }
  /// ```
  public func ifLet<DestinationState, DestinationAction, Destination: Reducer>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<DestinationState>>,
    action toPresentationAction: @escaping @Sendable (PresentationAction<DestinationAction>) -> Action,
    @ReducerBuilder<DestinationState, DestinationAction> destination: () -> Destination,
    fileID: StaticString = #fileID, line: UInt = #line
  ) -> _PresentationReducer<Self, Destination>
  where DestinationState == Destination.State, DestinationAction == Destination.Action {
    ifLet(
      toPresentationState, action: CasePath(toPresentationAction), destination: destination,
      fileID: fileID, line: line)
  }

  /// Runs `destination` on the state presented at `toPresentationState`, for the presentation
  /// actions at the case path `toPresentationAction`; see `ifLet(_:action:destination:)`.
  ///
  /// ```swift
  /// .ifLet(\.$destination, action: CasePath(Action.internal).appending(Internal.destination)) {
  ///   Destination()
  /// }
  /// ```
  public func ifLet<DestinationState, DestinationAction, Destination: Reducer>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<DestinationState>>,
    action toPresentationAction: CasePath<Action, PresentationAction<DestinationAction>>,
    @ReducerBuilder<DestinationState, DestinationAction> destination: () -> Destination,
    fileID: StaticString = #fileID, line: UInt = #line
  ) -> _PresentationReducer<Self, Destination>
  where DestinationState == Destination.State, DestinationAction == Destination.Action {
    _PresentationReducer(
      parent: self, destination: destination(), toPresentationState: toPresentationState,
      toPresentationAction: toPresentationAction, location: SourceLocation(fileID: fileID, line: line))
  }

  /// Presents ephemeral state, such as an alert or a confirmation dialog, with no reducer of
  /// its own: it is dismissed after any of its actions has reached this reducer.
  ///
  /// ```swift
  /// @PresentationState var alert: AlertState<Action.Alert>?
  /// ...
  /// .ifLet(\.$alert, action: Action.alert)
  /// ```
  public func ifLet<Ephemeral: EphemeralState>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<Ephemeral>>,
    action toPresentationAction: @escaping @Sendable (PresentationAction<Ephemeral.Action>) -> Action,
    fileID: StaticString = #fileID, line: UInt = #line
  ) -> _PresentationReducer<Self, EmptyReducer<Ephemeral, Ephemeral.Action>> {
    ifLet(toPresentationState, action: toPresentationAction, destination: { EmptyReducer() }, fileID: fileID, line: line)
  }
}

/// The reducer that the presentation `ifLet` returns.
public struct _PresentationReducer<Parent: Reducer, Destination: Reducer>: Reducer {
  let parent: Parent
  let destination: Destination
  let toPresentationState: WritableKeyPath<Parent.State, PresentationState<Destination.State>>
  let toPresentationAction: CasePath<Parent.Action, PresentationAction<Destination.Action>>
  let location: SourceLocation

  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let presentation = state[keyPath: toPresentationState]
    let identityAtStart = identity(of: presentation.wrappedValue)
    var destinationEffects = Effect<Parent.Action>.none
    let parentEffects: Effect<Parent.Action>
    switch (presentation.wrappedValue, toPresentationAction.extract(from: action)) {
    case let (destinationState?, .presented(destinationAction)?):
      destinationEffects = reduceDestination(into: &state, action: destinationAction, parentAction: action)
      parentEffects = parent.reduce(into: &state, action: action)
      if isDismissed(destinationState, by: destinationAction) { dismiss(&state, ifStill: identityAtStart) }
    case (.some, .dismiss?):
      parentEffects = parent.reduce(into: &state, action: action)
      dismiss(&state, ifStill: identityAtStart)
    case (nil, let presentationAction?):
      reportAbsentDestination(presentationAction)
      parentEffects = parent.reduce(into: &state, action: action)
    case (_, nil):
      parentEffects = parent.reduce(into: &state, action: action)
    }
    // The identity this operator last saw: a reducer that ran after it may have removed or
    // replaced the destination since.
    let identityBefore = presentation.presentedIdentity ?? identityAtStart
    let identityAfter = identity(of: state[keyPath: toPresentationState].wrappedValue)
    if identityAfter != presentation.presentedIdentity {
      state[keyPath: toPresentationState].presentedIdentity = identityAfter
    }
    guard let identityBefore, identityBefore != identityAfter else {
      return destinationEffects.merge(with: parentEffects)
    }
    BoundaryContext.childRemoved(atBoundary: toPresentationAction.staticName)
    return .merge(
      destinationEffects, parentEffects, .cancel(childAt: NavigationPath.current.appending(identityBefore)))
  }

  private func identity(of destinationState: Destination.State?) -> ChildIdentity? {
    destinationState.map { ChildIdentity(of: $0, heldBy: AnyHashableSendable(keyPath: toPresentationState)) }
  }

  private func reduceDestination(
    into state: inout Parent.State, action: Destination.Action, parentAction: Parent.Action
  ) -> Effect<Parent.Action> {
    guard let identity = identity(of: state[keyPath: toPresentationState].wrappedValue) else { return .none }
    var path = NavigationPath.current.appending(identity)
    let effects = NavigationPath.withCurrent(&path) {
      PresentedChild(child: destination).reduce(
        atBoundary: toPresentationAction.name(in: parentAction),
        into: &state[keyPath: toPresentationState].wrappedValue!, action: .presented(action))
    }
    return effects.map(toPresentationAction.embedder).cancellable(childAt: path)
  }

  /// Removes the destination, unless the parent has presented one of another identity.
  private func dismiss(_ state: inout Parent.State, ifStill identity: ChildIdentity?) {
    if self.identity(of: state[keyPath: toPresentationState].wrappedValue) == identity {
      state[keyPath: toPresentationState].wrappedValue = nil
    }
  }

  /// Whether `action` makes `destinationState` go away: an alert or dialog goes after any of
  /// its actions, an enum case that holds one after an action of that case only.
  private func isDismissed(_ destinationState: Destination.State, by action: Destination.Action) -> Bool {
    if let ephemeral = destinationState as? any EphemeralState {
      return ephemeral.isOwnAction(action, inCase: nil)
    }
    let mirror = Mirror(reflecting: destinationState)
    guard mirror.displayStyle == .enum, let held = mirror.children.first,
      let ephemeral = held.value as? any EphemeralState
    else { return false }
    return ephemeral.isOwnAction(action, inCase: held.label)
  }

  private func reportAbsentDestination(_ action: PresentationAction<Destination.Action>) {
    RuntimeWarning.report(
      """
      An "ifLet" at \(location) received a presentation action when destination state was \
      absent. …

        Action:
          \(action)

      This is generally considered an application logic error, and can happen for a few \
      reasons:

      • A parent reducer set destination state to "nil" before this reducer ran. This reducer \
      must run before any other reducer sets destination state to "nil", so that the \
      destination can handle its actions while its state is still present: put the logic that \
      dismisses it in the reducer this "ifLet" is applied to.

      • An in-flight effect of a dismissed destination emitted this action. Effects of a \
      destination are cancelled when it is dismissed through this "ifLet"; one started \
      elsewhere must be cancelled before the destination goes away.

      • This action was sent to the store while destination state was "nil". Make sure that \
      actions for this reducer can only be sent from a store when state is present, or from \
      effects that start from this reducer.
      """, at: location)
  }
}
