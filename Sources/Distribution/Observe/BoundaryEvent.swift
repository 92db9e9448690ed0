/// What happens to the workers of a composition, as the host sees it: for logs, for people
/// studying the boundaries, and for tests that wait on it instead of sleeping. Typed, and
/// `Codable`, so that a tool can carry it over a socket or into a file as it is.
///
/// ```swift
/// let composition = try Composition(root: App(), placement: placement, command: command, onEvent: { event in
///   if case .workerRestarted = event { print(event) }
/// })
/// ```
public enum BoundaryEvent: Sendable, Equatable, Codable, CustomStringConvertible {
  /// A worker serving `boundary` is running and authenticated.
  case workerStarted(boundary: String, pid: Int32)
  /// A worker's connection ended: it exited, crashed or was killed.
  case workerExited(boundary: String, pid: Int32)
  /// A worker was let go on purpose: the child state it served left the host's state (a
  /// fresh worker takes its place), or its boundary moved to the host and the effects it
  /// still ran have ended.
  case workerRetired(boundary: String, pid: Int32)
  /// A worker was started again after `reason`, from the host's copy of the child state.
  case workerRestarted(boundary: String, pid: Int32, reason: RestartReason)
  /// A worker did not answer a request within the boundary's deadline; it is killed and
  /// restarted like a crashed one.
  case workerStalled(boundary: String, pid: Int32, deadline: Duration)
  /// Someone other than the worker being started connected to its socket and was refused;
  /// the start went on.
  case connectionRefused(boundary: String, reason: String)
  /// Effects that were running in a worker when it died; their remaining actions are lost.
  case effectsLost(boundary: String, count: Int)
  /// The boundary's workers failed too often; its actions are dropped from now on and the
  /// rest of the tree goes on.
  case boundaryFailed(boundary: String, reason: BoundaryFailure)
  /// A worker reported an error for one action; the action changed nothing.
  case actionFailed(boundary: String, reason: String)
  /// A worker reached `limit`, set in the placement, and the kernel ended it; it is restarted
  /// like a crashed one.
  case limitExceeded(boundary: String, pid: Int32, limit: ResourceLimit)
  /// The boundary moved to `residence` while the composition ran (`Composition.move`), in
  /// `duration`: from the request to the moment its next action could run there (for a move
  /// to workers, once they had started).
  case moved(boundary: String, to: Residence, duration: Duration)
  /// `event` happened to a worker that a worker serving `parent` started for a boundary placed
  /// inside `parent` (nested placement), which supervises it; the worker reported it up. At
  /// depth 3 and below, `event` is itself `nested`.
  indirect case nested(in: String, event: BoundaryEvent)

  /// The event in a line for a log: "worker 4242 serves counter1".
  public var description: String {
    switch self {
    case let .workerStarted(boundary, pid): "worker \(pid) serves \(boundary)"
    case let .workerExited(boundary, pid): "worker \(pid) (\(boundary)) is gone"
    case let .workerRetired(boundary, pid): "worker \(pid) (\(boundary)) retired"
    case let .workerRestarted(boundary, pid, reason):
      "worker \(pid) restarted for \(boundary) after: \(reason)"
    case let .workerStalled(boundary, pid, deadline):
      "worker \(pid) (\(boundary)) stalled: no answer within \(deadline)"
    case let .connectionRefused(boundary, reason): "a connection to \(boundary)'s socket was refused: \(reason)"
    case let .effectsLost(boundary, count): "\(count) effect(s) of \(boundary) were lost"
    case let .boundaryFailed(boundary, reason): "boundary \(boundary) failed: \(reason)"
    case let .actionFailed(boundary, reason): "an action of \(boundary) failed: \(reason)"
    case let .limitExceeded(boundary, pid, limit): "\(boundary) worker \(pid) exceeded its \(limit)"
    case let .moved(boundary, residence, duration):
      "\(boundary) moved to the \(residence) in \(duration.readable)"
    case let .nested(parent, event): "\(event.innermost) (reported by \(parent)'s worker, depth \(depth))"
    }
  }

  /// The event itself, below any `nested` that carried it up.
  ///
  /// ```swift
  /// if case .workerRestarted = event.innermost { print("restarted at depth", event.depth) }
  /// ```
  public var innermost: BoundaryEvent {
    if case let .nested(_, event) = self { event.innermost } else { self }
  }

  /// The depth of the worker the event is about: 1 for the host's own workers, 2 for those
  /// they start, and so on.
  public var depth: Int {
    if case let .nested(_, event) = self { 1 + event.depth } else { 1 }
  }
}

extension BoundaryEvent {
  /// The boundary the event is about.
  ///
  /// ```swift
  /// onEvent: { event in if event.boundary == "composer" { print(event) } }
  /// ```
  public var boundary: String {
    switch self {
    case let .workerStarted(boundary, _), let .workerExited(boundary, _), let .workerRetired(boundary, _),
      let .workerRestarted(boundary, _, _), let .workerStalled(boundary, _, _), let .connectionRefused(boundary, _),
      let .effectsLost(boundary, _), let .boundaryFailed(boundary, _), let .actionFailed(boundary, _),
      let .limitExceeded(boundary, _, _), let .moved(boundary, _, _):
      boundary
    case let .nested(_, event): event.boundary
    }
  }
}
