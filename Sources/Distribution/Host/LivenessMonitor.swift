import Dispatch
internal import Transport

/// Asks idle workers, once a period, whether they still answer: a worker stopped (`kill
/// -STOP`) or wedged while its effects were meant to run is noticed within its deadline and a
/// period (the pong of an effects ping is looked for at the next probe), not only when the
/// next action finds it.
final class LivenessMonitor: Sendable {
  private let stopped = DispatchSemaphore(value: 0)

  /// Starts probing `boundaries` every `period` on a thread of its own, until `stop()`.
  init(boundaries: [RemoteBoundary], period: Duration) {
    DetachedThread.run { [stopped] in
      let seconds = Double(period.wholeMilliseconds) / 1_000
      while stopped.wait(timeout: .now() + seconds) == .timedOut {
        for boundary in boundaries { boundary.probeIdleWorkers(idleFor: period) }
      }
    }
  }

  /// Ends the probing; a probe under way finishes within its deadline.
  func stop() { stopped.signal() }
}
