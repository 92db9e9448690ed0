/// Where a placed boundary's child runs now: in workers, as the placement put it, or in the
/// host, after `Composition.move(_:to:)` brought it there.
///
/// ```swift
/// let took = try composition.move("counter1", to: .host)
/// ```
public enum Residence: String, Sendable, Equatable, Codable, CustomStringConvertible {
  /// In the host's own process, as if the placement did not name the boundary.
  case host
  /// In the boundary's workers (its pool), which run it from the host's copy of the state.
  case worker

  public var description: String { rawValue }
}
