import Bulkhead
import BulkheadDistribution
import CoreBenchmarks
import Examples
import Foundation
import Transport

/// What limits on workers cost and hold, under the mechanism this machine offers and under
/// resource limits alone: a worker's start with limits against one without, in one run; and a
/// busy loop under `cpu 20%`: its share of a core, and a sibling's remote action p99 against
/// the same p99 with the loop idle.
@MainActor
func limitBenchmarks() throws -> [Row] {
  let command = try childWorker(app: "two-counters")
  let limits = Placement.Entry(path: "counter1", memoryLimit: 256 << 20, cpuPercent: 50, fileLimit: 256)
  let mechanisms = [LimitMechanism.detect(), .resourceLimits]
  // Each start the best of three rounds, taken in turn, so that a machine busier in one part
  // of the run favours none of them.
  var unlimited = Double.infinity
  var limited = mechanisms.map { _ in Double.infinity }
  for _ in 0..<3 {
    unlimited = min(unlimited, try restartAndMeasure(command).start)
    for (index, mechanism) in mechanisms.enumerated() {
      let start = try LimitMechanism.$chosen.withValue(mechanism) { try restartAndMeasure(command, entry: limits).start }
      limited[index] = min(limited[index], start)
    }
  }
  var rows = [Row(name: "start child-worker to greeted (forked), no limits", value: unlimited, unit: "ms", baseline: nil)]
  for (mechanism, start) in zip(mechanisms, limited) {
    rows.append(
      Row(
        name: "start child-worker to greeted (forked), memory 256MB cpu 50% files 256 by \(mechanism.kind)",
        value: start, unit: "ms", baseline: unlimited, goal: .ratio(1.2)))
  }
  for mechanism in mechanisms {
    let label = mechanism.kind
    let (share, idle, loaded) = try LimitMechanism.$chosen.withValue(mechanism) { try busyLoopUnderALimit() }
    rows.append(
      Row(
        name: "busy loop under cpu 20%, \(label): share of one core over 3 s (from /proc)", value: share, unit: "%",
        baseline: nil, goal: .value(25), hasRatio: false))
    rows.append(
      Row(
        name: "sibling's remote action p99 while the loop runs, \(label) (baseline: the loop idle)", value: loaded,
        unit: "µs", baseline: idle, goal: .ratio(2)))
  }
  return rows
}

/// The `runaway` example with `spinner cpu 20%` and `steady` in workers: the spinner's share of
/// a core while it busy-loops, in percent, and the steady counter's remote action p99 in
/// microseconds, idle and while the loop runs.
@MainActor
private func busyLoopUnderALimit() throws -> (share: Double, idle: Double, loaded: Double) {
  let composition = try Composition(
    root: Runaway(), placement: Placement(parsing: "spinner cpu 20%\nsteady\n", file: "benchmark"),
    command: try childWorker(app: "runaway"))
  defer { composition.shutdown() }
  let store = Store(initialState: Runaway.State()) { composition.compose(Runaway()) }
  let idle = p99(of: store, for: .seconds(2))
  guard let spinner = composition.processes.first?.pids.first else { return (0, idle, 0) }
  store.send(.spinner(.spin(milliseconds: 3_500)))
  let before = (cpu: cpuTicks(of: spinner), time: ContinuousClock.now)
  let loaded = p99(of: store, for: .seconds(3))
  let seconds = seconds(ContinuousClock.now - before.time)
  let share = Double(cpuTicks(of: spinner) - before.cpu) / Double(sysconf(Int32(_SC_CLK_TCK))) / seconds * 100
  return (share, idle, loaded)
}

/// The p99 of the steady counter's round trips, in microseconds, sent one after another for
/// `window`.
@MainActor
private func p99(of store: Store<Runaway.State, Runaway.Action>, for window: Duration) -> Double {
  var latencies: [Double] = []
  let end = ContinuousClock.now + window
  while ContinuousClock.now < end {
    let start = ContinuousClock.now
    store.send(.steady(.incrementButtonTapped))
    latencies.append(seconds(.now - start) * 1e6)
  }
  return latencies.sorted()[latencies.count * 99 / 100]
}

/// User and system CPU time of `pid`, in clock ticks, from /proc/PID/stat.
private func cpuTicks(of pid: Int32) -> Int {
  guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else {
    return 0
  }
  let fields = stat[stat.index(after: end)...].split(separator: " ")
  guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
  return user + system
}

private func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
