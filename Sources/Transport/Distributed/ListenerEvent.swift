#if canImport(Glibc)
  import Glibc
#endif

/// What an `ActorListener` did on its own to a connection, or could not do: for the host's
/// log, and for tests that wait on it instead of sleeping.
package enum ListenerEvent: Sendable, Equatable, CustomStringConvertible {
  /// The connection from process `peer` was closed as soon as it was accepted.
  case refused(peer: pid_t, reason: Refusal)
  /// The connection from process `peer` was closed because a request it began had not come
  /// whole within `deadline`; `received` bytes of it had.
  case timedOut(peer: pid_t, deadline: Duration, received: Int)
  /// The connection from process `peer` was closed because it had sent nothing for `after`.
  case idle(peer: pid_t, after: Duration)
  /// The connection from process `peer` was closed because it broke the protocol, or ended
  /// in the middle of a request.
  case dropped(peer: pid_t, error: TransportError)
  /// The listener could not accept a connection (the process is out of descriptors, say); it
  /// tries again shortly, and says so again only after it has accepted one.
  case acceptFailed(TransportError)

  /// Why a connection was refused as soon as it was accepted.
  package enum Refusal: Sendable, Equatable, CustomStringConvertible {
    /// The peer runs as user `uid`; only `expected`, this process's user, may connect.
    case otherUser(uid: uid_t, expected: uid_t)
    /// The kernel could not tell who the peer is.
    case unknownPeer
    /// `open` connections are open, the most the listener serves at once.
    case tooManyConnections(open: Int)

    package var description: String {
      switch self {
      case let .otherUser(uid, expected): "it runs as user \(uid); only this process's user (\(expected)) may connect"
      case .unknownPeer: "who it is cannot be told"
      case let .tooManyConnections(open): "\(open) connections are open, the most this listener serves at once"
      }
    }
  }

  package var description: String {
    switch self {
    case let .refused(peer, reason): "a connection from pid \(peer) was refused: \(reason)"
    case let .timedOut(peer, deadline, received):
      "a connection from pid \(peer) was closed: its request did not come whole within \(deadline) "
        + "(it sent \(received) bytes of it)"
    case let .idle(peer, after):
      "a connection from pid \(peer) was closed: it sent no request for \(after)"
    case let .dropped(peer, error): "a connection from pid \(peer) was closed: \(error)"
    case let .acceptFailed(error): "the listener cannot accept connections for now: \(error)"
    }
  }
}
