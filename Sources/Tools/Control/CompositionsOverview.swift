import Bulkhead
import BulkheadDistribution
import Foundation
internal import Transport

/// `ps` and `top` with no app: every composition that is up, one line each, as `docker ps`
/// lists containers, a failed boundary marked. A run file left by a host that is gone is
/// removed on the way, and said.
///
/// ```text
/// APP           HOST PID  UPTIME  WORKERS  RESTARTS  ACTIONS  STATUS            PLACEMENT
/// timers        15222     0:42    2/2      1         12       up                placements/timers.placement
/// two-counters  15300     0:10    0/1      4         6        FAILED: counter1  …
/// ```
@MainActor
enum CompositionsOverview {
  /// One composition that answered.
  struct Entry {
    let app: String
    let run: RunFile
    let snapshot: Wire.ControlSnapshot
  }

  /// Prints the table once, or (`live`) redraws it each second with actions per second.
  static func run(live: Bool, terminal: HostTerminal) async throws {
    guard live else {
      for line in table(of: await gather(terminal: terminal), rates: nil) { terminal.say(line) }
      return
    }
    var previous: (entries: [String: Entry], time: ContinuousClock.Instant)?
    try await RedrawLoop.run {
      let entries = await gather(terminal: terminal)
      let now = ContinuousClock.now
      let rates = previous.map { previous in
        let seconds = Double(previous.time.duration(to: now).wholeMilliseconds) / 1_000
        return entries.reduce(into: [String: Double]()) { rates, entry in
          guard seconds > 0, let before = previous.entries[entry.app] else { return }
          rates[entry.app] = Double(actions(of: entry.snapshot) - actions(of: before.snapshot)) / seconds
        }
      }
      previous = (Dictionary(entries.map { ($0.app, $0) }) { $1 }, now)
      let clock = Amount.timeOfDay()
      return ["every composition that is up   \(clock)   q or Ctrl-C quits", ""] + table(of: entries, rates: rates ?? [:])
    }
  }

  /// The compositions of the run directory that answer, by app; a host that is gone has its
  /// run file removed, and one that does not answer is said on standard error.
  static func gather(terminal: HostTerminal) async -> [Entry] {
    let location = RunDirectory.location()
    guard FileManager.default.fileExists(atPath: location), let directory = try? RunDirectory.open(creating: false, at: location)
    else { return [] }
    var entries: [Entry] = []
    for app in directory.appsWithRunFiles {
      do {
        let target = try ControlTarget(app: app)
        let (system, control) = try target.connect()
        defer { system.close() }
        let snapshot = try await target.calling { try await control.snapshot() }
        entries.append(Entry(app: app, run: target.run, snapshot: snapshot))
      } catch {
        terminal.warn("\(error)")
      }
    }
    return entries
  }

  /// The table: with `rates` (actions per second by app, for `top`), without uptime and
  /// placement, to fit 80 columns.
  static func table(of entries: [Entry], rates: [String: Double]?) -> [String] {
    guard !entries.isEmpty else { return ["no composition is up (\"./compose.sh up APP\" starts one)"] }
    let uptime = ProcessState.machineUptime()
    var rows =
      rates == nil
      ? [["APP", "HOST PID", "UPTIME", "WORKERS", "RESTARTS", "ACTIONS", "STATUS", "PLACEMENT"]]
      : [["APP", "HOST PID", "WORKERS", "RESTARTS", "ACTIONS", "ACTIONS/S", "STATUS"]]
    for entry in entries {
      let boundaries = entry.snapshot.boundaries
      let places = boundaries.flatMap(\.workers)
      let running = places.filter { $0.pid.flatMap { ProcessState(of: Int32($0))?.isAlive } == true }.count
      let failed = boundaries.filter { $0.failure != nil }.map(\.boundary)
      let status = failed.isEmpty ? "up" : "FAILED: " + failed.joined(separator: ", ")
      let counts = [
        "\(running)/\(places.count)", String(places.map(\.restarts).reduce(0, +)), String(actions(of: entry.snapshot)),
      ]
      let host = String(entry.snapshot.hostPID)
      if let rates {
        rows.append([entry.app, host] + counts + [rates[entry.app].map(Amount.decimal) ?? "-", status])
      } else {
        let age = ProcessState(of: Int32(entry.snapshot.hostPID)).map { Amount.duration(seconds: $0.age(machineUptime: uptime)) }
        rows.append([entry.app, host, age ?? "-"] + counts + [status, entry.run.placement.isEmpty ? "-" : entry.run.placement])
      }
    }
    return TextTable(rows).lines
  }

  private static func actions(of snapshot: Wire.ControlSnapshot) -> Int {
    snapshot.boundaries.map(\.actions).reduce(0, +)
  }
}
