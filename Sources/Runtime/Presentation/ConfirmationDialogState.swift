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
public struct ConfirmationDialogState<Action: Sendable>: EphemeralState {
  /// Whether the dialog shows its title.
  public enum Visibility: String, Equatable, Hashable, Sendable, Codable {
    case automatic, hidden, visible
  }

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
    self.titleVisibility = titleVisibility
    self.title = title()
    self.buttons = actions()
    self.message = message?()
  }
}

extension ConfirmationDialogState: Equatable where Action: Equatable {}
extension ConfirmationDialogState: Hashable where Action: Hashable {}
extension ConfirmationDialogState: Codable where Action: Codable {}
