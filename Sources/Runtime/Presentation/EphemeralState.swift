/// State that is presented and then dismissed as soon as the user acts on it, such as an
/// alert. `ifLet` with no child reducer sets it to nil after any of its actions.
public protocol EphemeralState<Action>: Sendable {
  associatedtype Action: Sendable
}

extension EphemeralState {
  /// Whether `action`, sent to a destination that holds this state in its case named
  /// `caseName` (nil when the destination is this state itself), is one of this state's own
  /// actions, which dismiss it. An action of another case of the destination is not.
  ///
  /// The action's case is found by its payload, which is this state's `Action`. Where several
  /// cases of the destination's action carry that type (an alert and a dialog with one action
  /// type, say), the one named like the state's case is the state's own.
  func isOwnAction<DestinationAction>(_ action: DestinationAction, inCase caseName: String?) -> Bool {
    if DestinationAction.self == Action.self { return true }
    // An action whose cases cannot be read: dismissed after any action, as alone.
    guard let layout = EnumLayout.of(DestinationAction.self) else { return true }
    let ownType = ObjectIdentifier(Action.self)
    let sent = layout.cases[Int(layout.tag(of: action))]
    guard sent.payloadType == ownType else { return false }
    guard !sent.hasUniquePayloadType,
      layout.cases.contains(where: { $0.payloadType == ownType && $0.name == caseName })
    else { return true }
    return sent.name == caseName
  }
}
