/// The actions of a presented child such as an alert: one of its own actions, or dismissal.
///
/// ```swift
/// enum Action: Sendable {
///   case alert(PresentationAction<Alert>)
///   enum Alert: Sendable { case confirmDeletion }
/// }
/// ```
public enum PresentationAction<Action: Sendable>: Sendable {
  /// The presented child was dismissed without choosing an action.
  case dismiss
  /// The presented child sent `action`.
  case presented(Action)
}

extension PresentationAction: Equatable where Action: Equatable {}
extension PresentationAction: Hashable where Action: Hashable {}
extension PresentationAction: Codable where Action: Codable {}
