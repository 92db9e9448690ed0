internal import Transport

/// Why `Composition.move(_:to:)` (and `./compose.sh move`) did not move a boundary; nothing
/// changed. `description` is the one place the words for people are made. Thrown by the
/// control endpoint, it reaches the caller as itself.
///
/// ```swift
/// do { _ = try composition.move("profile", to: .host) } catch let refusal as MoveRefusal { print(refusal) }
/// ```
public enum MoveRefusal: Error, Sendable, Equatable, Codable, CustomStringConvertible {
  /// `boundary` has no workers of this composition's to move: it is not in the placement (or
  /// not a boundary at all). `placed` are the boundaries that can move.
  case notPlaced(boundary: String, placed: [String])
  /// `boundary` runs inside the worker of `outer`, which places it: that worker, not the host,
  /// would have to move it, which is not supported yet.
  case insidePlacedBoundary(boundary: String, outer: String)
  /// `boundary`'s worker places `inner` in workers of its own: in the host they would have no
  /// worker to run in, which is not supported yet.
  case holdsPlacedBoundaries(boundary: String, inner: [String])
  /// `boundary` runs in `residence` already.
  case alreadyThere(boundary: String, residence: Residence)
  /// `boundary` failed (its workers restarted too often) and takes no actions.
  case failed(boundary: String, reason: BoundaryFailure)
  /// The composition is shutting down.
  case shuttingDown(boundary: String)

  public var description: String {
    switch self {
    case let .notPlaced(boundary, placed):
      "cannot move \(boundary): only a boundary the placement puts in workers can move, and this one's are: "
        + (placed.isEmpty ? "(none)" : placed.joined(separator: ", "))
    case let .insidePlacedBoundary(boundary, outer):
      "cannot move \(boundary): it is placed inside \(outer), whose worker runs it; moving a boundary placed inside another is not supported yet"
    case let .holdsPlacedBoundaries(boundary, inner):
      "cannot move \(boundary): its worker places \(inner.joined(separator: ", ")) in workers of its own; moving a boundary that holds placed boundaries is not supported yet"
    case let .alreadyThere(boundary, residence):
      "\(boundary) runs in the \(residence) already"
    case let .failed(boundary, reason): "cannot move \(boundary): it has failed: \(reason)"
    case let .shuttingDown(boundary): "cannot move \(boundary): the composition is shutting down"
    }
  }
}

extension MoveRefusal: CodableError {}
