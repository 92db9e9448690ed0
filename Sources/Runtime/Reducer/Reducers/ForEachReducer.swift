extension Reducer {
  /// Runs `element` on each element of the identified array at `toElementsState`, for the
  /// actions of case `toElementAction` that name the element's id.
  ///
  /// The element runs first, then this reducer. When an element leaves the array its effects
  /// are cancelled in the same pass. An action for an element that is not there is reported
  /// as a runtime warning.
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .forEach(\.rows, action: Action.rows) { Row() }
  /// ```
  public func forEach<ElementState, ElementAction, ID: Hashable & Sendable, Element: Reducer>(
    _ toElementsState: WritableKeyPath<State, IdentifiedArray<ID, ElementState>>,
    action toElementAction: @escaping @Sendable (IdentifiedAction<ID, ElementAction>) -> Action,
    @ReducerBuilder<ElementState, ElementAction> element: () -> Element,
    fileID: StaticString = #fileID, line: UInt = #line
  ) -> _ForEachReducer<Self, ID, Element>
  where ElementState == Element.State, ElementAction == Element.Action {
    _ForEachReducer(
      parent: self, element: element(), toElementsState: toElementsState,
      elements: FieldPath(toElementsState), holder: AnyHashableSendable(keyPath: toElementsState),
      toElementAction: CasePath(toElementAction),
      location: SourceLocation(fileID: fileID, line: line))
  }
}

/// The reducer that `forEach` returns.
public struct _ForEachReducer<Parent: Reducer, ID: Hashable & Sendable, Element: Reducer>: Reducer {
  let parent: Parent
  let element: Element
  let toElementsState: WritableKeyPath<Parent.State, IdentifiedArray<ID, Element.State>>
  /// `toElementsState` as the reducer reaches the elements on every action: by offset when it
  /// can, with no key path to apply.
  let elements: FieldPath<Parent.State, IdentifiedArray<ID, Element.State>>
  /// `toElementsState` as an identity, erased once: what names this `forEach` in its elements'
  /// navigation paths.
  let holder: AnyHashableSendable
  let toElementAction: CasePath<Parent.Action, IdentifiedAction<ID, Element.Action>>
  let location: SourceLocation

  public func reduce(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    let elementEffects = reduceElement(into: &state, action: action)
    // The ids alone, read in place: a copy of the whole collection retains all its buffers.
    let idsBefore = elements.reading(&state) { $0.ids }
    let parentEffects = parent.reduce(into: &state, action: action)
    // Unchanged ids compare by identity, so an action that adds or removes nothing costs no
    // walk over the collection.
    let removed = elements.reading(&state) { remaining in
      remaining.ids == idsBefore ? [] : idsBefore.filter { remaining[id: $0] == nil }
    }
    guard !removed.isEmpty else { return elementEffects.merge(with: parentEffects) }
    for id in removed {
      BoundaryContext.childRemoved(atBoundary: toElementAction.staticName, element: id)
    }
    return .merge(
      [elementEffects, parentEffects] + removed.map { .cancel(childAt: path(forElement: $0)) })
  }

  private func path(forElement id: ID) -> NavigationPath {
    NavigationPath.current.appendingElement(id, of: holder)
  }

  private func reduceElement(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    guard case let .element(id, elementAction)? = toElementAction.extract(from: action) else {
      return .none
    }
    var effects = Effect<Element.Action>.none
    let found = NavigationPath.withCurrentElement(id, of: holder) {
      elements.modify(&state) { elements in
        elements.modify(id: id) {
          effects = element.reduce(
            atBoundary: toElementAction.name(in: action), element: id, into: &$0,
            action: elementAction)
        }
      }
    }
    guard found else {
      OperatorWarning.missingChild(
        headline: """
          A "forEach" at \(location) received an action for a missing element
          """,
        boundary: toElementAction.name(in: action),
        details: ["Element": "\(id)", "Action": "\(action)"],
        causes: [
          """
          The parent removed the element before this "forEach" ran. To fix it, let the \
          element run first: apply ".forEach" to the reducer that removes elements.
          """,
          """
          An effect outlived the element. Effects the element returned are cancelled when \
          this "forEach" sees it removed; to fix it, give other effects ".cancellable(id:)" \
          and cancel them when the element is removed.
          """,
          OperatorWarning.sentFromOutside,
        ], at: location)
      return .none
    }
    // Checked here, before the embedding closure is made (an allocation) to be passed to `map`
    // and before the element's path is made.
    guard !effects.isNone else { return .none }
    return effects.map { [toElementAction] in toElementAction.embed(.element(id: id, action: $0)) }
      .cancellable(childAt: path(forElement: id))
  }
}
