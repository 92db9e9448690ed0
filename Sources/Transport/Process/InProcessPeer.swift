/// A peer served by a thread of this process over two socket pairs: what a worker process
/// is to its host, without the process. For fast protocol tests, as SwiftNIO's
/// `EmbeddedChannel` stands in for a network.
///
/// ```swift
/// let peer = try InProcessPeer.start { control, effects in serve(control, effects) }
/// // talk over peer.control and peer.effects; peer.end() is the peer crashing
/// ```
package struct InProcessPeer: Sendable {
  private let farEnds: [SocketShutdown]
  private let nearEnds: ConnectionHalves

  /// The near ends of the two connections.
  package var control: FramedConnection { nearEnds.control.connection }
  package var effects: FramedConnection { nearEnds.effects.connection }

  /// Starts `serve` on a thread of its own with the far ends of two new connections.
  package static func start(
    _ serve: @escaping @Sendable (_ control: FramedConnection, _ effects: FramedConnection) -> Void
  ) throws(TransportError) -> InProcessPeer {
    let (control, farControl) = try UnixSocket.pair()
    let (effects, farEffects) = try UnixSocket.pair()
    let far = ConnectionHalves(
      control: ConnectionHalf(connection: FramedConnection(farControl)),
      effects: ConnectionHalf(connection: FramedConnection(farEffects)))
    DetachedThread.run { serve(far.control.connection, far.effects.connection) }
    return InProcessPeer(
      farEnds: [farControl.shutdownHandle, farEffects.shutdownHandle],
      nearEnds: ConnectionHalves(
        control: ConnectionHalf(connection: FramedConnection(control)),
        effects: ConnectionHalf(connection: FramedConnection(effects))))
  }

  /// Ends the peer's side of both connections, as the death of a worker process would.
  package func end() {
    for end in farEnds { end.shutdown() }
  }
}

/// The two connections of one side, each handed to exactly one owner.
private struct ConnectionHalves: Sendable {
  let control: ConnectionHalf
  let effects: ConnectionHalf
}
