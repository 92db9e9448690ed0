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
  ///
  /// Call it first thing, on the main thread. It also undoes what a worker inherits from how
  /// it was started and must not keep: the signal mask of the host's spawn thread (which
  /// blocks every signal, as Dispatch's threads do), and SIGTERM ignored by a host that
  /// handles it itself; otherwise `WorkerProcess.terminate()` would do nothing.
  ///
  /// The parent-death signal is SIGKILL, which no mask or handler can hold back. If the host
  /// dies before `prctl` runs here, the signal is never sent; end of file on standard input
  /// covers that case: the host's end of the pipe is open only in the host (close-on-exec,
  /// and Foundation closes every other descriptor in the children it starts), so the kernel
  /// closes it when the host dies, whenever that is, and end of file stays. The thread that
  /// reads standard input sees it, at the latest, as soon as it starts.
  public static func receive() throws(TransportError) -> WorkerLaunch {
    _ = bulkhead_set_parent_death_signal(SIGKILL)
    var none = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, nil)
    var terminate = sigaction()
    if sigaction(SIGTERM, nil, &terminate) == 0, let handler = terminate.__sigaction_handler.sa_handler,
      unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    {
      signal(SIGTERM, SIG_DFL)
    }
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
