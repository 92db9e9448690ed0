import Foundation

/// A piece of text to show to the user.
public struct TextState: Equatable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
  CustomStringConvertible
{
  public let string: String

  public init(_ string: String) { self.string = string }
  public init(stringLiteral string: String) { self.string = string }

  public var description: String { string }
}

/// One button of an alert or confirmation dialog, and the action it sends.
public struct ButtonState<Action: Sendable>: Sendable {
  /// How a button presents itself.
  public enum Role: String, Equatable, Hashable, Sendable, Codable {
    case cancel, destructive
  }

  public let role: Role?
  public let action: Action?
  public let label: TextState

  /// A button with `label` that sends `action` when tapped (or only dismisses, without one).
  ///
  /// ```swift
  /// ButtonState(role: .destructive, action: .confirmDeletion) { TextState("Delete") }
  /// ```
  public init(role: Role? = nil, action: Action? = nil, label: () -> TextState) {
    self.role = role
    self.action = action
    self.label = label()
  }
}

extension ButtonState: Equatable where Action: Equatable {}
extension ButtonState: Hashable where Action: Hashable {}
extension ButtonState: Codable where Action: Codable {}

/// The state of an alert: a title, an optional message and buttons that send actions.
///
/// ```swift
/// state.alert = AlertState {
///   TextState("Delete this item?")
/// } actions: {
///   ButtonState(role: .destructive, action: .confirmDeletion) { TextState("Delete") }
/// }
/// ```
public struct AlertState<Action: Sendable>: EphemeralState, Identifiable {
  /// Which alert this is: a new one for each alert made, so a parent that replaces an alert
  /// with an equal-looking one still shows a new alert. Equality ignores it.
  public let id: UUID
  public let title: TextState
  public let message: TextState?
  public let buttons: [ButtonState<Action>]

  public init(
    title: () -> TextState,
    @ButtonStateBuilder<Action> actions: () -> [ButtonState<Action>] = { [] },
    message: (() -> TextState)? = nil
  ) {
    self.id = UUID()
    self.title = title()
    self.buttons = actions()
    self.message = message?()
  }
}

extension AlertState: Equatable where Action: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.title == rhs.title && lhs.message == rhs.message && lhs.buttons == rhs.buttons
  }
}
extension AlertState: Hashable where Action: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(title)
    hasher.combine(message)
    hasher.combine(buttons)
  }
}
extension AlertState: Codable where Action: Codable {}

extension AlertState: CustomReflectable {
  /// What test failures and dumps show: the content, without the identity.
  public var customMirror: Mirror {
    Mirror(self, children: ["title": title, "message": message as Any, "buttons": buttons])
  }
}

/// Collects the buttons of an alert.
@resultBuilder
public enum ButtonStateBuilder<Action: Sendable> {
  public static func buildBlock(_ buttons: [ButtonState<Action>]...) -> [ButtonState<Action>] {
    buttons.flatMap { $0 }
  }
  public static func buildExpression(_ button: ButtonState<Action>) -> [ButtonState<Action>] {
    [button]
  }
  public static func buildOptional(_ buttons: [ButtonState<Action>]?) -> [ButtonState<Action>] {
    buttons ?? []
  }
}
