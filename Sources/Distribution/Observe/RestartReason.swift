/// Why the host gave a worker up and started its successor: the reason a `workerRestarted`
/// event carries, and the last one before a `boundaryFailed`. The words for people are made
/// from it here, in `description`, and nowhere else.
///
/// ```swift
/// if case .workerRestarted(_, _, .stalled) = event { stalls += 1 }
/// ```
public enum RestartReason: Sendable, Equatable, Codable, CustomStringConvertible {
  /// One of the worker's connections ended: it exited, crashed, or was killed from outside.
  case connectionEnded(Connection)
  /// One of the worker's connections failed: a write that could not be made, bytes that
  /// could not be read.
  case connectionFailed(Connection, String)
  /// The worker did not answer within the boundary's deadline; it was killed.
  case stalled(deadline: Duration)
  /// Someone asked for the worker to be killed (`./compose.sh kill`).
  case killedOnRequest
  /// The worker sent the host something the protocol does not allow; it was killed.
  case brokeProtocol(ProtocolViolation)
  /// The worker could not be started: the successor of one that failed, or of one that
  /// retired with its child.
  case startFailed(String)
  /// The worker reached `limit`, set in the placement, and the kernel ended it.
  case exceededLimit(ResourceLimit)

  public var description: String {
    switch self {
    case let .connectionEnded(connection): "its \(connection) connection ended (it exited or was killed)"
    case let .connectionFailed(connection, error): "its \(connection) connection failed: \(error)"
    case let .stalled(deadline): "it stalled (no answer within \(deadline))"
    case .killedOnRequest: "it was killed on request (SIGKILL)"
    case let .brokeProtocol(violation): "it broke the protocol: \(violation)"
    case let .startFailed(error): "it could not start: \(error)"
    case let .exceededLimit(limit): "it exceeded its \(limit)"
    }
  }
}

extension RestartReason {
  /// One of the two connections between the host and a worker.
  public enum Connection: String, Sendable, Codable, CustomStringConvertible {
    /// Where the host's reducer asks the worker to run actions, and waits for the reply.
    case control
    /// Where effects talk: the worker's effect actions, the host's starts and cancels.
    case effects

    public var description: String { rawValue }
  }
}

/// What a worker did that the protocol does not allow.
public enum ProtocolViolation: Sendable, Equatable, Codable, CustomStringConvertible {
  /// A message the host never gave it cause for: about a run the host never started, a pong
  /// for a ping never sent. `message` says which, cut short.
  case unprompted(message: String)
  /// Effect action `came` arrived after `last`: the ones between went missing on the way.
  case actionsMissing(last: UInt64, came: UInt64)
  /// An effect body ended after its action `said`, and the last that came is `last`.
  case endedWithActionsMissing(said: UInt64, last: UInt64)
  /// A reply named effect body `run`, which runs already (a damaged run number).
  case runNamedTwice(run: UInt64)
  /// An effect action of `bytes` bytes that does not decode.
  case undecodableAction(bytes: Int)
  /// An async call named `token` while the host still answers the call of that token.
  case callNamedTwice(token: UInt64)
  /// It answered "stale" to a request that carried the whole state, which replaces its copy.
  case staleToWholeState
  /// Anything else, said in words: an answer that does not fit its request, more warnings
  /// than a reply may carry, a patch that does not apply.
  case other(String)

  public var description: String {
    switch self {
    case let .unprompted(message): "it sent a message the host never gave it cause for: \(message)"
    case let .actionsMissing(last, came):
      "its effect action \(came) came after \(last): the ones between went missing on the way"
    case let .endedWithActionsMissing(said, last):
      "an effect body ended after action \(said), and the last that came is \(last): the rest went missing on the way"
    case let .runNamedTwice(run): "its effect body run \(run) was named again while it runs (a damaged run number)"
    case let .undecodableAction(bytes): "an effect action of \(bytes) bytes does not decode"
    case let .callNamedTwice(token): "its async call \(token) was named again while the host answers it"
    case .staleToWholeState: "it answered \"stale\" to a request that carried the whole state"
    case let .other(what): what
    }
  }
}

extension ProtocolViolation {
  /// The violation that `error`, thrown on reading a worker's answer, says in words.
  init(_ error: any Error) {
    guard case let DistributionError.protocolViolation(what) = error else {
      self = .other("\(error)")
      return
    }
    self = .other(what)
  }
}

/// Why a boundary failed for good: its workers failed more often than its restart policy
/// allows, the last of them for `last`.
public struct BoundaryFailure: Sendable, Equatable, Codable, CustomStringConvertible {
  public let last: RestartReason
  public let policy: RestartPolicy

  public var description: String {
    "\(last); restarted \(policy.maximumRestarts) times within \(policy.period)"
  }
}
