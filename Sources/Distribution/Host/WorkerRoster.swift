import Synchronization
internal import Transport

/// Every worker process a composition has started and not yet seen exit, so that shutdown
/// reaches all of them, bounded in time whatever they do, and a launch racing shutdown cannot
/// leave a worker behind.
final class WorkerRoster: Sendable {
  private struct State {
    var processes: [WorkerProcess] = []
    var isClosed = false
  }

  private let state = Mutex(State())

  /// Records a process that was just started. Once shutdown has begun it is killed instead,
  /// and the answer is false.
  func admit(_ process: WorkerProcess) -> Bool {
    let admitted = state.withLock { state in
      guard !state.isClosed else { return false }
      // Keeps the roster as long as the workers that have not ended, not as long as every
      // worker ever.
      state.processes.removeAll(where: \.hasEnded)
      state.processes.append(process)
      return true
    }
    if !admitted { process.kill() }
    return admitted
  }

  /// Waits until the worker `pid` has ended (exited and reaped, its output read to its end,
  /// every descriptor the host held for it closed), at most `milliseconds`; whether it has.
  /// True at once for a process the roster does not hold: one that ended before another
  /// started, or none of this composition's.
  func waitUntilEnded(_ pid: Int32, milliseconds: Int32) -> Bool {
    guard let process = state.withLock({ $0.processes.first { $0.pid == pid } }) else { return true }
    return process.waitForEnd(milliseconds: milliseconds)
  }

  /// Stops every worker: closes their input, which a worker takes as the host going away;
  /// waits up to `grace` for all of them together; kills the rest, stopped or stuck ones
  /// included (SIGKILL ends a stopped process too). Admits no process afterwards.
  func stopAll(grace: Duration) {
    let processes = state.withLock { state in
      state.isClosed = true
      defer { state.processes = [] }
      return state.processes
    }
    for process in processes { process.closeInput() }
    let deadline = ContinuousClock.now + grace
    let lingering = processes.filter { process in
      let left = max(0, ContinuousClock.now.duration(to: deadline).wholeMilliseconds)
      return !process.waitForExit(milliseconds: left)
    }
    for process in lingering { process.kill() }
    for process in lingering { _ = process.waitForExit(milliseconds: 1_000) }
  }
}
