#if canImport(Glibc)
  import Glibc
#endif

/// One connection that a `ListenerLoop` serves: its system, the reading half the system handed
/// over, and when its next request is due.
final class PolledConnection {
  /// Held here: its reading half only holds it weakly.
  let system: SocketActorSystem
  let handlers: ConnectionThread.Handlers
  /// The process on the other end.
  let peer: pid_t
  /// When the next request must have come whole: `deadline` after the connection was
  /// accepted, or after the last request came.
  private(set) var due: ContinuousClock.Instant
  private let deadline: Duration
  private let reader: FramedConnection

  init(system: SocketActorSystem, serving: SocketActorSystem.Serving, peer: pid_t, deadline: Duration) {
    self.system = system
    self.reader = serving.reader.connection
    self.handlers = serving.handlers
    self.peer = peer
    self.deadline = deadline
    self.due = .now + deadline
  }

  /// What the peer has sent of a request that has not come whole.
  var received: Int { reader.bufferedByteCount }

  /// Takes what the socket holds, without waiting, and hands each whole frame to the system.
  /// `.ended` when the connection ended or must end; `end(_:)` is then left to the caller.
  func readAvailable(at now: ContinuousClock.Instant) -> ConnectionThread.Handlers.Outcome {
    _ = reader.readAvailable()
    while reader.isReadyToReceive {
      if case let .ended(error) = handlers.handleNext(of: reader) { return .ended(error) }
      due = now + deadline
    }
    return .handled
  }

  /// Ends the connection, with the error that ended it, if any: its calls in flight fail, and
  /// the peer sees the end.
  func end(_ error: TransportError?) {
    handlers.end(error)
  }
}
