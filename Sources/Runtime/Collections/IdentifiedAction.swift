/// An action for one element of a collection, addressed by the element's id.
///
/// ```swift
/// enum Action: Sendable {
///   case rows(IdentifiedActionOf<Row>)
/// }
/// store.send(.rows(.element(id: 1, action: .toggled)))
/// ```
public enum IdentifiedAction<ID: Hashable & Sendable, Action: Sendable>: Sendable {
  case element(id: ID, action: Action)
}

extension IdentifiedAction: Equatable where Action: Equatable {}
extension IdentifiedAction: Hashable where Action: Hashable {}
extension IdentifiedAction: Codable where ID: Codable, Action: Codable {}

/// The identified action of the elements of reducer `R`.
public typealias IdentifiedActionOf<R: Reducer> = IdentifiedAction<R.State.ID, R.Action>
where R.State: Identifiable, R.State.ID: Sendable
