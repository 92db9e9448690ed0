import Foundation

/// The state of a confirmation dialog: a title, an optional message and buttons that send
/// actions. Like an alert, it is dismissed after any of its actions.
///
/// ```swift
/// state.dialog = ConfirmationDialogState(titleVisibility: .visible) {
///   TextState("Clear all notes?")
/// } actions: {
///   ButtonState(role: .destructive, action: .clearAll) { TextState("Clear all") }
///   ButtonState(role: .cancel) { TextState("Cancel") }
/// }
/// ```
public struct ConfirmationDialogState<Action: Sendable>: EphemeralState, Identifiable {
  /// Whether the dialog shows its title.
  public enum Visibility: String, Equatable, Hashable, Sendable, Codable {
    case automatic, hidden, visible
  }

  /// Which dialog this is: a new one for each dialog made, so a parent that replaces a dialog
  /// with an equal-looking one still shows a new dialog. Equality ignores it.
  public let id: UUID
  /// Whether the title is shown.
  public let titleVisibility: Visibility
  /// The dialog's title.
  public let title: TextState
  /// Text under the title, if any.
  public let message: TextState?
  /// The dialog's buttons, in order.
  public let buttons: [ButtonState<Action>]

  /// A dialog titled `title`, with `actions` as its buttons and an optional `message`.
  public init(
    titleVisibility: Visibility = .automatic,
    title: () -> TextState,
    @ButtonStateBuilder<Action> actions: () -> [ButtonState<Action>] = { [] },
    message: (() -> TextState)? = nil
  ) {
    self.id = UUID()
    self.titleVisibility = titleVisibility
    self.title = title()
    self.buttons = actions()
    self.message = message?()
  }
}

extension ConfirmationDialogState: Equatable where Action: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.titleVisibility == rhs.titleVisibility && lhs.title == rhs.title && lhs.message == rhs.message
      && lhs.buttons == rhs.buttons
  }
}
extension ConfirmationDialogState: Hashable where Action: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(titleVisibility)
    hasher.combine(title)
    hasher.combine(message)
    hasher.combine(buttons)
  }
}
extension ConfirmationDialogState: Codable where Action: Codable {}

extension ConfirmationDialogState: CustomReflectable {
  /// What test failures and dumps show: the content, without the identity.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: ["titleVisibility": titleVisibility, "title": title, "message": message as Any, "buttons": buttons])
  }
}
