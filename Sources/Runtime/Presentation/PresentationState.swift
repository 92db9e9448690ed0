/// The state of a feature that a parent presents (a sheet, a popover, an alert, a pushed
/// screen with one destination): nil while nothing is presented.
///
/// Declare it as a property wrapper and hand its projection to the presentation `ifLet`:
///
/// ```swift
/// struct State {
///   @PresentationState var destination: Destination.State?
/// }
/// ...
/// .ifLet(\.$destination, action: Action.destination) { Destination() }
/// ```
@propertyWrapper
public struct PresentationState<State> {
  /// The presented state, or nil.
  public var wrappedValue: State?
  /// The identity of the child the presentation `ifLet` last saw here, so that it notices a
  /// child removed or replaced by another reducer in between and cancels its effects. Neither
  /// compared nor encoded.
  var presentedIdentity: ChildIdentity?

  /// A presentation of `wrappedValue`, or of nothing; what `@PresentationState var x: S? = nil`
  /// calls.
  public init(wrappedValue: State?) {
    self.wrappedValue = wrappedValue
  }

  /// The wrapper itself: `$destination`, which the presentation `ifLet` takes.
  public var projectedValue: Self {
    get { self }
    set { self = newValue }
  }
}

/// Two presentations are equal when they present equal states.
extension PresentationState: Equatable where State: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.wrappedValue == rhs.wrappedValue }
}

extension PresentationState: Hashable where State: Hashable {
  public func hash(into hasher: inout Hasher) { hasher.combine(wrappedValue) }
}

extension PresentationState: Sendable where State: Sendable {}

/// Encoded as the optional state alone.
extension PresentationState: Codable where State: Codable {
  public init(from decoder: any Decoder) throws {
    self.init(wrappedValue: try decoder.singleValueContainer().decode(State?.self))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(wrappedValue)
  }
}

extension PresentationState: CustomStringConvertible {
  public var description: String { wrappedValue.map { "\($0)" } ?? "nil" }
}

/// Shown to diffs as the optional state alone.
extension PresentationState: CustomReflectable {
  public var customMirror: Mirror { Mirror(reflecting: wrappedValue as Any) }
}
