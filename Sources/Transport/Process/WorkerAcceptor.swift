#if canImport(Glibc)
  import Glibc
#endif

/// Accepts the connections of one launched worker on a listener, before a deadline.
///
/// Anyone of this user can connect to the listener while a worker starts; a stranger is
/// refused and dropped and the wait goes on, so a stray client cannot fail a launch. A
/// worker that exits before it connects ends the wait at once instead of at the deadline.
///
/// ```swift
/// let acceptor = WorkerAcceptor(listener: listener, worker: worker, secret: secret, within: .seconds(10))
/// let control = try acceptor.accept { refusal in print("refused: \(refusal)") }
/// ```
package struct WorkerAcceptor {
  package let listener: UnixListener
  package let worker: WorkerProcess
  package let secret: LaunchSecret
  package let deadline: ContinuousClock.Instant
  private let budget: Duration

  package init(listener: UnixListener, worker: WorkerProcess, secret: LaunchSecret, within budget: Duration) {
    self.listener = listener
    self.worker = worker
    self.secret = secret
    self.budget = budget
    deadline = .now + budget
  }

  /// The next connection that proves it comes from `worker`; `onRefused` hears of every
  /// other one, which is closed.
  package func accept(onRefused: (TransportError) -> Void = { _ in }) throws(TransportError) -> FramedConnection {
    // Without one (a kernel without pidfds), only the deadline ends the wait.
    let exit = worker.exitDescriptor() ?? -1
    defer { if exit >= 0 { close(exit) } }
    if exit < 0 && !worker.isRunning { throw .processExited(name: worker.name, pid: worker.pid) }
    while true {
      let milliseconds = ContinuousClock.now.duration(to: deadline).wholeMilliseconds
      guard milliseconds > 0 else { throw timedOut }
      var requests = [
        pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0),
        pollfd(fd: exit, events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&requests, exit >= 0 ? 2 : 1, milliseconds)
      if ready < 0 {
        if errno == EINTR { continue }
        throw .system("poll", listener.path)
      }
      if ready == 0 { throw timedOut }
      // An exited worker wins over a connection it may have left behind.
      if exit >= 0 && requests[1].revents != 0 { throw .processExited(name: worker.name, pid: worker.pid) }
      let connection = FramedConnection(try listener.accept())
      do {
        _ = try Handshake.verify(
          connection, secret: secret, expectedPID: worker.pid, timeout: max(1, Int(milliseconds / 1_000)))
        return connection
      } catch {
        onRefused(error)
      }
    }
  }

  private var timedOut: TransportError {
    .timedOut(path: listener.path, milliseconds: budget.wholeMilliseconds)
  }
}

extension Duration {
  /// The duration in whole milliseconds, clamped to what `poll` and socket options take.
  package var wholeMilliseconds: Int32 {
    Int32(clamping: components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000)
  }
}
