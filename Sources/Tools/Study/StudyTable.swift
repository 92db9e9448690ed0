import Bulkhead
import BulkheadDistribution
import Foundation

/// A study's runs as one table a terminal shows: per placement, latency p50/p99, bytes
/// crossed and host CPU per action; per fault, what it did.
///
/// ```swift
/// print(StudyTable(try await study.run()).text)
/// ```
package struct StudyTable: Sendable {
  package let runs: [StudyRun]

  package init(_ runs: [StudyRun]) {
    self.runs = runs
  }

  /// The columns' names.
  static let header = ["placement", "fault", "actions", "p50", "p99", "B/action", "host CPU/action", "what the fault did"]

  /// One run's cells, under `header`.
  private static func cells(of run: StudyRun) -> [String] {
    [
      run.placement, faultWords(of: run), "\(run.actions)",
      format(run.latency(percentile: 0.5)), format(run.latency(percentile: 0.99)),
      String(format: "%.0f", run.bytesPerAction), format(run.hostCPUPerAction), outcome(of: run),
    ]
  }

  /// Every row's cells: one per run, and a last one for a fault in the host, which no run
  /// needs to show.
  var rows: [[String]] {
    var rows = runs.map(Self.cells(of:))
    if let inHost = runs.first(where: \.placed.isEmpty) {
      rows.append([
        inHost.placement, "kill or stall", "—", "—", "—", "—", "—",
        "the host process dies or hangs with it: every boundary's state is lost (not run)",
      ])
    }
    return rows
  }

  /// Columns as wide as their widest cell (`TextTable`), the last one unpadded.
  package var text: String {
    TextTable([Self.header] + rows).lines.joined(separator: "\n")
  }

  /// The fault, where it landed and which worker of the boundary's pool it hit.
  static func faultWords(of run: StudyRun) -> String {
    guard let fault = run.fault else { return "—" }
    let worker = run.faultedWorker.map { " worker \($0)" } ?? ""
    let action = run.faultAction.map { ", action \($0)" } ?? ""
    return "\(fault)\(worker)\(action)"
  }

  /// What the fault did: the restarts, how long recovery took, effects lost, actions delayed.
  static func outcome(of run: StudyRun) -> String {
    guard run.fault != nil else { return run.restarts == 0 ? "" : "\(run.restarts) restart(s) without a fault" }
    guard !run.faultHitNothing else {
      return "no worker was running at action \(run.faultAction ?? 0): the fault hit nothing (choose another with --fault-at)"
    }
    let restart: String
    if let recovery = run.recovery {
      restart = "\(run.restarts) restart(s), recovered in \(format(recovery))"
    } else {
      restart = "no restart: no later action reached the boundary"
    }
    return [
      restart, "\(run.effectsLost) effect(s) lost",
      "\(run.actionsDelayedByRestart) action(s) waited for the restart and ran once",
    ].joined(separator: ", ")
  }

  /// A duration in the unit that suits it: µs below a millisecond, ms below a second.
  static func format(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let microseconds = Double(seconds) * 1e6 + Double(attoseconds) / 1e12
    if microseconds < 1_000 { return String(format: "%.0f µs", microseconds) }
    if microseconds < 1_000_000 { return String(format: "%.1f ms", microseconds / 1e3) }
    return String(format: "%.2f s", microseconds / 1e6)
  }
}
