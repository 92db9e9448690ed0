/// The actions of a navigation stack: an action of one element, a push, or a pop.
///
/// ```swift
/// enum Action: Sendable {
///   case path(StackActionOf<Path>)
/// }
/// store.send(.path(.element(id: 0, action: .saveButtonTapped)))
/// store.send(.path(.popFrom(id: 0)))
/// ```
public enum StackAction<State: Sendable, Action: Sendable>: Sendable {
  /// The element with `id` sent `action`.
  case element(id: StackElementID, action: Action)
  /// Pop the element with `id` and every element above it.
  case popFrom(id: StackElementID)
  /// Push `state` with the id `id`, normally the stack's `nextID`.
  case push(id: StackElementID, state: State)
}

extension StackAction: Equatable where State: Equatable, Action: Equatable {}
extension StackAction: Hashable where State: Hashable, Action: Hashable {}
extension StackAction: Codable where State: Codable, Action: Codable {}

/// The stack action of the elements of reducer `R`.
///
/// ```swift
/// case path(StackActionOf<Path>)
/// ```
public typealias StackActionOf<R: Reducer> = StackAction<R.State, R.Action> where R.State: Sendable
