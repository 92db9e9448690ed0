/// The identity of one element of a `StackState`: a generation number that its stack hands
/// out in order and never reuses, so an effect that outlives its element cannot reach the
/// element pushed after it.
///
/// Ids print as `#0`, `#1`, …; an integer literal names one, as tests do:
///
/// ```swift
/// store.send(.path(.element(id: 0, action: .saveButtonTapped)))
/// ```
public struct StackElementID: Hashable, Sendable, Comparable, Codable, ExpressibleByIntegerLiteral,
  CustomStringConvertible
{
  /// The position of this id in the order its stack handed ids out.
  public let generation: Int

  /// The id of generation `generation`.
  public init(generation: Int) {
    self.generation = generation
  }

  /// The id of generation `generation`, written as a number: `.element(id: 0, action: …)`.
  public init(integerLiteral generation: Int) {
    self.init(generation: generation)
  }

  public init(from decoder: any Decoder) throws {
    generation = try decoder.singleValueContainer().decode(Int.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(generation)
  }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.generation < rhs.generation }

  public var description: String { "#\(generation)" }
}

/// Shown to diffs as `#0`, like its description.
extension StackElementID: CustomReflectable {
  public var customMirror: Mirror { Mirror(self, children: [:]) }
}
