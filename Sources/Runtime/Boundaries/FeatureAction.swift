/// An action split by where it comes from and who may see it: `view` actions from the user
/// interface, `internal` actions a feature sends itself, and `delegate` actions it sends to
/// its parent. Parents should only react to `delegate` actions.
///
/// ```swift
/// enum Action: FeatureAction {
///   enum ViewAction: Sendable { case loginButtonTapped }
///   enum InternalAction: Sendable { case loginResponse(Result<String, LoginError>) }
///   enum DelegateAction: Sendable { case didLogIn(String) }
///   case view(ViewAction)
///   case _internal(InternalAction)
///   case delegate(DelegateAction)
/// }
/// ```
public protocol FeatureAction: Sendable {
  associatedtype ViewAction: Sendable
  associatedtype InternalAction: Sendable
  associatedtype DelegateAction: Sendable

  static func view(_ action: ViewAction) -> Self
  static func _internal(_ action: InternalAction) -> Self
  static func delegate(_ action: DelegateAction) -> Self
}

/// Which of the three kinds an action of a `FeatureAction` is.
public enum FeatureActionKind: String, Sendable, Codable {
  case view, `internal`, delegate
}

extension FeatureAction {
  /// The kind of this action.
  public var kind: FeatureActionKind {
    if CasePath(Self.view).extract(from: self) != nil { return .view }
    if CasePath(Self._internal).extract(from: self) != nil { return .internal }
    return .delegate
  }
}
