import BulkheadDistribution
import Foundation

/// `kill`, `stop` or `cont` of a boundary placed inside another boundary's worker (nested
/// placement). The host supervises only its own workers, so the signal goes straight to the
/// process /proc shows serving that boundary; the worker that started it supervises it as the
/// host does its own: it restarts a killed one from its copy of the state, and gives up a
/// stopped one past its deadline.
///
/// ```swift
/// let signal = InnerWorkerSignal(signal: .kill, boundary: "list.destination", index: 0)
/// if let said = try signal.send(below: snapshot) { print(said) }
/// ```
struct InnerWorkerSignal {
  let signal: Wire.WorkerSignal
  let boundary: String
  let index: Int

  /// Sends the signal to worker `index` of `boundary` among the workers below the host's in
  /// `snapshot`, and returns what to say; nil when none of them serves `boundary`.
  ///
  /// - Throws: `ControlError.noSuchWorker` for an index past the boundary's workers.
  func send(below snapshot: Wire.ControlSnapshot) throws(ControlError) -> String? {
    let workers = ProcessTree.scan().innerWorkers(below: snapshot).filter { $0.worker.boundary == boundary }
    guard !workers.isEmpty else { return nil }
    guard let target = workers.first(where: { $0.index == index })?.worker else {
      throw .noSuchWorker(boundary: boundary, index: index, workers: workers.count)
    }
    let name = "SIG\(String(describing: signal).uppercased())"
    guard kill(target.pid, signal.number) == 0 else {
      return "worker \(index) of \(boundary) (pid \(target.pid)) had already exited, so no \(name) was sent"
    }
    let next =
      switch signal {
      case .kill: "the worker that started it, pid \(target.parent), starts its successor for the boundary's next action"
      case .stop: "the worker that started it, pid \(target.parent), gives it up past its deadline"
      case .cont: "it goes on"
      }
    return "sent \(name) to worker \(index) of \(boundary) (pid \(target.pid), depth \(target.depth)): \(next)"
  }
}
