import Foundation
internal import Transport

/// What a host holds of a running worker besides its connections: a process, or a thread of
/// the host's own in a loopback composition.
protocol WorkerHandle: Sendable {
  var name: String { get }
  var pid: Int32 { get }
  /// Ends the worker at once, as a crash would.
  func kill()
  /// Lets the worker end on its own.
  func closeInput()
  /// Whether the worker has not exited yet, as far as the host has noticed.
  var isRunning: Bool { get }
  /// Sends the worker `number`, for fault injection: SIGKILL, SIGSTOP, SIGCONT. False when
  /// the worker had exited, and nothing was sent.
  func send(signal number: Int32) -> Bool
  /// Whether the worker ended at its memory limit, waited for at most `milliseconds`: false
  /// at once for a worker without one.
  func endedAtMemoryLimit(waitingAtMost milliseconds: Int32) -> Bool
}

extension WorkerProcess: WorkerHandle {}

/// A worker served by a thread of the host's process over socket pairs (`WorkerCommand.loopback`):
/// the same endpoints and messages as a worker process, without spawning one. Its pid is the
/// host's own.
struct LoopbackWorker: WorkerHandle {
  let name: String
  let peer: InProcessPeer

  var pid: Int32 { getpid() }

  /// The host's own thread serves it: it runs until its peer ends, which the host notices
  /// by its connections.
  var isRunning: Bool { true }

  func kill() { peer.end() }

  func closeInput() { peer.end() }

  /// A thread cannot be stopped or continued on its own: SIGKILL ends its peer, as a crash
  /// would, and every other signal is ignored.
  func send(signal number: Int32) -> Bool {
    if number == SIGKILL { peer.end() }
    return true
  }

  /// A thread of the host's has no limits of its own.
  func endedAtMemoryLimit(waitingAtMost milliseconds: Int32) -> Bool { false }
}
