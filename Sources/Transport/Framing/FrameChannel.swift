import Synchronization

/// A framed connection shared between threads: any thread may send, and one reader thread of
/// its own hands every received frame to `onFrame`, in order.
///
/// ```swift
/// let channel = FrameChannel(connection, onFrame: { frame in ... }, onClose: { error in ... })
/// try channel.send(Frame(kind: 1, payload: bytes))
/// ```
package final class FrameChannel: Sendable {
  private let writer: Mutex<ConnectionHalf>
  /// Shuts the socket down without the writer's lock; see `close()`.
  private let shutdownHandle: SocketShutdown

  /// Starts reading `connection`, which must already be authenticated. `onClose` runs once,
  /// on the reader thread, when the peer closes the connection (nil) or it fails.
  package init(
    _ connection: FramedConnection,
    onFrame: @escaping @Sendable (Frame) -> Void,
    onClose: @escaping @Sendable (TransportError?) -> Void
  ) {
    writer = Mutex(ConnectionHalf(connection: FramedConnection(connection.socket)))
    shutdownHandle = connection.socket.shutdownHandle
    let reader = ConnectionHalf(connection: connection)
    DetachedThread.run {
      do throws(TransportError) {
        while let frame = try reader.connection.receive() { onFrame(frame) }
        onClose(nil)
      } catch {
        onClose(error)
      }
    }
  }

  /// Sends `frames` in one write.
  package func send(_ frames: some Collection<Frame>) throws(TransportError) {
    try writer.withLock { half throws(TransportError) in try half.connection.send(frames) }
  }

  /// Sends one frame.
  package func send(_ frame: Frame) throws(TransportError) {
    try send(CollectionOfOne(frame))
  }

  /// Shuts the connection down in both directions; the reader thread sees the end and stops,
  /// and a sender blocked on a peer that reads nothing (stopped, its buffer full) fails at
  /// once. Does not wait for the writer's lock, which that sender holds.
  ///
  /// The socket cannot be closed, and its descriptor number reused, while this runs: the
  /// channel holds the socket (through both halves) so it is not deinitialised, and an
  /// explicit close goes through the same `SocketShutdown`, whose lock orders the two.
  package func close() {
    shutdownHandle.shutdown()
  }
}
