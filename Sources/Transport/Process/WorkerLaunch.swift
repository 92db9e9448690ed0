import CSystem
import Foundation

/// What a worker learns from its host at start: where to connect, and the secret to prove
/// itself with. Read from standard input, which then stays open: when it closes, the host
/// is gone and the worker exits.
///
/// ```swift
/// let launch = try WorkerLaunch.receive()
/// let connection = try launch.connect()
/// ```
public struct WorkerLaunch: Sendable {
  public let socketPath: String
  public let secret: LaunchSecret

  /// Reads the launch from standard input, and arranges for this process to exit when the
  /// host dies: by the parent-death signal, and by end of file on standard input.
  public static func receive() throws(TransportError) -> WorkerLaunch {
    _ = bulkhead_set_parent_death_signal(SIGTERM)
    guard let path = readLine(strippingNewline: true), let secret = readLine(strippingNewline: true) else {
      throw .authenticationFailed("standard input closed before the socket path and secret arrived")
    }
    DetachedThread.run {
      var byte: UInt8 = 0
      while read(STDIN_FILENO, &byte, 1) > 0 {}
      exit(0)
    }
    return WorkerLaunch(socketPath: path, secret: LaunchSecret(text: secret))
  }

  /// Connects to the host and proves this worker's identity.
  public func connect() throws(TransportError) -> FramedConnection {
    let connection = FramedConnection(try UnixSocket.connect(to: socketPath))
    try Handshake.introduce(on: connection, secret: secret)
    return connection
  }
}
