#if canImport(Glibc)
  import Glibc
#endif

/// One connection that a `ListenerLoop` serves: its system, the reading half the system handed
/// over, and when it must next have sent something: the rest of a request it began, within the
/// read deadline, or a new request, within the idle deadline.
final class PolledConnection {
  /// Held here: its reading half only holds it weakly.
  let system: SocketActorSystem
  let handlers: ConnectionThread.Handlers
  /// The process on the other end.
  let peer: pid_t
  private let limits: ActorListener.Limits
  private let reader: FramedConnection
  /// When the last request came whole, or the connection was accepted.
  private var lastRequest: ContinuousClock.Instant
  /// When the first bytes of a request that has not come whole were read; nil between requests.
  private var requestBegan: ContinuousClock.Instant?

  init(system: SocketActorSystem, serving: SocketActorSystem.Serving, peer: pid_t, limits: ActorListener.Limits) {
    self.system = system
    self.reader = serving.reader.connection
    self.handlers = serving.handlers
    self.peer = peer
    self.limits = limits
    self.lastRequest = .now
  }

  /// When the connection is closed unless it sends more.
  var due: ContinuousClock.Instant {
    requestBegan.map { $0 + limits.readDeadline } ?? lastRequest + limits.idleDeadline
  }

  /// What the peer has sent of a request that has not come whole.
  var received: Int { reader.bufferedByteCount }

  /// Why the connection is closed once it is due, and the deadline it passed.
  var overdue: (event: ListenerEvent, deadline: Duration) {
    requestBegan == nil
      ? (.idle(peer: peer, after: limits.idleDeadline), limits.idleDeadline)
      : (.timedOut(peer: peer, deadline: limits.readDeadline, received: received), limits.readDeadline)
  }

  /// Takes what the socket holds, without waiting, and hands each whole frame to the system.
  /// `.ended` when the connection ended or must end; `end(_:)` is then left to the caller.
  func readAvailable(at now: ContinuousClock.Instant) -> ConnectionThread.Handlers.Outcome {
    _ = reader.readAvailable()
    while reader.isReadyToReceive {
      if case let .ended(error) = handlers.handleNext(of: reader) { return .ended(error) }
      lastRequest = now
      requestBegan = nil
    }
    if reader.bufferedByteCount == 0 {
      requestBegan = nil
    } else if requestBegan == nil {
      requestBegan = now
    }
    return .handled
  }

  /// Ends the connection, with the error that ended it, if any: its calls in flight fail, and
  /// the peer sees the end.
  func end(_ error: TransportError?) {
    handlers.end(error)
  }
}
