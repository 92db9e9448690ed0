import Bulkhead
import BulkheadDistribution
import Foundation

/// A study run by the host's command line (`--study NAME [--report FILE]`): says what it does
/// as it goes, prints the table, and writes the HTML report.
@MainActor
struct StudySession {
  let app: ScriptedApp
  let command: WorkerCommand
  /// Where the limits of each studied boundary come from (the app's placement file).
  let limits: Placement?
  let terminal: HostTerminal
  /// The action of one pass of the script the faults land on, from 1; nil for halfway.
  var faultAt: Int? = nil
  /// Whether the placements are compared by moving boundaries in one composition.
  var live = false

  func run(report: String?) async throws {
    signal(SIGPIPE, SIG_IGN)
    let boundaries = app.boundaries.map(\.path)
    guard !boundaries.isEmpty else {
      throw DistributionError.usage("\(app.name) has no boundaries to study: none of its reducers is a Scope, ifLet or forEach child")
    }
    // Checked before the study runs rather than after it.
    if let report, !FileManager.default.createFile(atPath: report, contents: nil) {
      throw DistributionError.usage("cannot write the report to \(report): check that its folder exists and is writable")
    }
    terminal.say(
      "study of \(app.name): its script with every boundary in the host, then each of \(boundaries.joined(separator: ", ")) "
        + "in a worker, killed and stalled " + (faultAt.map { "at action \($0)" } ?? "halfway")
        + (live ? ", in one composition whose boundaries move" : ""))
    let runs = try await Study(app: app, command: command, limits: limits, faultAt: faultAt, live: live)
      .run(progress: terminal.say)
    terminal.say(StudyTable(runs).text)
    guard let report else { return }
    do {
      try StudyReport(app: app.name, runs: runs).html.write(toFile: report, atomically: true, encoding: .utf8)
    } catch {
      throw DistributionError.usage("cannot write the report to \(report): \(error)")
    }
    terminal.say("report: \(report)")
  }
}
