extension Reducer {
  /// Runs `destination` on each element of the navigation stack at `toStackState`, for the
  /// stack actions of case `toStackAction`.
  ///
  /// - `.element(id:action:)`: the element runs first, then this reducer.
  /// - `.popFrom(id:)`: this reducer runs first, still seeing the element, which is then popped
  ///   with every element above it.
  /// - `.push(id:state:)`: the element is pushed first, then this reducer runs.
  /// - Elements that leave the stack (here or, found at the next action, through any other
  ///   reducer) have their effects cancelled.
  /// - An effect of an element can call `dismiss()` (`@Dependency(\.dismiss)`), which sends
  ///   `.popFrom(id:)` for that element through this reducer.
  /// - An action for an id the stack does not hold, or a push of one it holds, is a runtime
  ///   warning. A push of an id lower than the stack's `nextID` goes on top like any other.
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .forEach(\.path, action: Action.path) { Path() }
  /// ```
  public func forEach<DestinationState, DestinationAction, Destination: Reducer>(
    _ toStackState: WritableKeyPath<State, StackState<DestinationState>>,
    action toStackAction: @escaping @Sendable (StackAction<DestinationState, DestinationAction>) -> Action,
    @ReducerBuilder<DestinationState, DestinationAction> destination: () -> Destination,
    fileID: StaticString = #fileID, line: UInt = #line
  ) -> _StackReducer<Self, Destination>
  where DestinationState == Destination.State, DestinationAction == Destination.Action {
    forEach(toStackState, action: CasePath(toStackAction), destination: destination, fileID: fileID, line: line)
  }

  /// Runs `destination` on each element of the navigation stack at `toStackState`, for the
  /// stack actions at the case path `toStackAction`; see `forEach(_:action:destination:)`.
  ///
  /// ```swift
  /// .forEach(\.path, action: CasePath(Action.internal).appending(Internal.path)) { Path() }
  /// ```
  public func forEach<DestinationState, DestinationAction, Destination: Reducer>(
    _ toStackState: WritableKeyPath<State, StackState<DestinationState>>,
    action toStackAction: CasePath<Action, StackAction<DestinationState, DestinationAction>>,
    @ReducerBuilder<DestinationState, DestinationAction> destination: () -> Destination,
    fileID: StaticString = #fileID, line: UInt = #line
  ) -> _StackReducer<Self, Destination>
  where DestinationState == Destination.State, DestinationAction == Destination.Action {
    _StackReducer(
      parent: self, destination: destination(), toStackState: toStackState, toStackAction: toStackAction,
      location: SourceLocation(fileID: fileID, line: line))
  }
}

/// The reducer that the stack `forEach` returns.
public struct _StackReducer<Parent: Reducer, Destination: Reducer>: Reducer
where Destination.State: Sendable {
  let parent: Parent
  let destination: Destination
  let toStackState: WritableKeyPath<Parent.State, StackState<Destination.State>>
  let toStackAction: CasePath<Parent.Action, StackAction<Destination.State, Destination.Action>>
  let location: SourceLocation

  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let stack = state[keyPath: toStackState]
    var elementEffects = Effect<Parent.Action>.none
    let parentEffects: Effect<Parent.Action>
    switch toStackAction.extract(from: action) {
    case let .element(id, elementAction)?:
      elementEffects = reduceElement(id, into: &state, action: elementAction, parentAction: action)
      parentEffects = parent.reduce(into: &state, action: action)
    case let .popFrom(id)?:
      parentEffects = parent.reduce(into: &state, action: action)
      if stack.ids.contains(id) {
        state[keyPath: toStackState].pop(from: id)
      } else {
        reportUnknown(id, in: stack, what: "a \"popFrom\" action for a missing element")
      }
    case let .push(id, element)?:
      if stack.ids.contains(id) {
        reportUnknown(id, in: stack, what: "a \"push\" action for an element it already contains")
      } else if !state[keyPath: toStackState].push(element, id: id) {
        reportUnknown(id, in: stack, what: "a \"push\" action for the last id there is, which no id could follow")
      } else if id > stack.nextID, DependencyValues.current.context == .test {
        reportSkipped(to: id, from: stack.nextID)
      }
      parentEffects = parent.reduce(into: &state, action: action)
    case nil:
      parentEffects = parent.reduce(into: &state, action: action)
    }
    // The ids this operator last saw, and those there when the action arrived: another reducer
    // may have changed the stack since.
    let idsAfter = state[keyPath: toStackState].ids
    guard stack.mounted != idsAfter || stack.ids != idsAfter else {
      return elementEffects.merge(with: parentEffects)
    }
    state[keyPath: toStackState].mounted = idsAfter
    let removed = (stack.mounted + stack.ids.filter { !stack.mounted.contains($0) })
      .filter { !idsAfter.contains($0) }
    for id in removed {
      BoundaryContext.childRemoved(atBoundary: toStackAction.staticName, element: id)
    }
    return .merge([elementEffects, parentEffects] + removed.map { .cancel(childAt: path(forElement: $0)) })
  }

  private func path(forElement id: StackElementID) -> NavigationPath {
    NavigationPath.current.appending(
      StackElementPlace(stack: AnyHashableSendable(keyPath: toStackState), id: id))
  }

  private func reduceElement(
    _ id: StackElementID, into state: inout Parent.State, action: Destination.Action,
    parentAction: Parent.Action
  ) -> Effect<Parent.Action> {
    var path = path(forElement: id)
    var effects = Effect<PresentationAction<Destination.Action>>.none
    let found = NavigationPath.withCurrent(&path) {
      state[keyPath: toStackState].modify(id: id) {
        effects = PresentedChild(child: destination).reduce(
          atBoundary: toStackAction.name(in: parentAction), element: id, into: &$0,
          action: .presented(action))
      }
    }
    guard found else {
      reportMissingElement(parentAction)
      return .none
    }
    return effects.map { [toStackAction] in
      switch $0 {
      case let .presented(action): toStackAction.embed(.element(id: id, action: action))
      case .dismiss: toStackAction.embed(.popFrom(id: id))
      }
    }
    .cancellable(childAt: path)
  }

  private func reportMissingElement(_ action: Parent.Action) {
    RuntimeWarning.report(
      """
      A "forEach" at \(location) received an action for a missing element. …

        Action:
          \(action)

      This is generally considered an application logic error, and can happen for a few \
      reasons:

      • A parent reducer popped the element with this ID before this reducer ran. This reducer \
      must run before any other reducer removes an element, so that element reducers can \
      handle their actions while their state is still available.

      • An in-flight effect emitted this action after its element was popped. Effects of an \
      element are cancelled when it leaves the stack through this "forEach"; one started \
      elsewhere must be cancelled before the element goes away.

      • This action was sent to the store while the stack held no element with this ID. Make \
      sure that actions for an element are only sent while it is on the stack.
      """, at: location)
  }

  private func reportUnknown(_ id: StackElementID, in stack: StackState<Destination.State>, what: String) {
    RuntimeWarning.report(
      """
      A "forEach" at \(location) received \(what). …

        ID:
          \(id)
        Path IDs:
          \(stack.ids)

      Nothing was popped or pushed. Send "popFrom" with an id from the stack's "ids", and \
      "push" with the stack's "nextID".
      """, at: location)
  }

  private func reportSkipped(to id: StackElementID, from expected: StackElementID) {
    RuntimeWarning.report(
      """
      A "forEach" at \(location) received a "push" action with an unexpected generational ID. …

        Received ID:
          \(id)
        Expected ID:
          \(expected)

      Ids are handed out in order, so a test can predict them: push with the stack's "nextID".
      """, at: location)
  }
}

/// The place of one element of one stack in the feature tree, for cancelling its effects.
private struct StackElementPlace: Hashable, Sendable {
  let stack: AnyHashableSendable
  let id: StackElementID
}
