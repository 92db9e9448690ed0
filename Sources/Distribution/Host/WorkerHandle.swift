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
  /// Sends the worker `number`, for fault injection: SIGKILL, SIGSTOP, SIGCONT.
  func send(signal number: Int32)
}

extension WorkerProcess: WorkerHandle {}

/// A worker served by a thread of the host's process over socket pairs (`WorkerCommand.loopback`):
/// the same endpoints and messages as a worker process, without spawning one. Its pid is the
/// host's own.
struct LoopbackWorker: WorkerHandle {
  let name: String
  let peer: InProcessPeer

  var pid: Int32 { getpid() }

  func kill() { peer.end() }

  func closeInput() { peer.end() }

  /// A thread cannot be stopped or continued on its own: SIGKILL ends its peer, as a crash
  /// would, and every other signal is ignored.
  func send(signal number: Int32) {
    if number == SIGKILL { peer.end() }
  }
}
