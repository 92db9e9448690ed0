import Bulkhead
import BulkheadDistribution
import CoreBenchmarks
import Examples
import Foundation
import Transport

/// Starting a `child-worker` for a boundary until it has greeted the host, forked from the
/// composition's worker template and spawned, against spawning `/bin/true`; and what idle
/// workers cost in memory, one and a pool of 64.
@MainActor
func childWorkerStartupBenchmarks(bareSpawn milliseconds: Double) throws -> [Row] {
  let forked = try childWorker(app: "two-counters")
  let spawned = forked.spawningEachWorker()
  let forkedStart = try restartAndMeasure(forked)
  let spawnedStart = try restartAndMeasure(spawned)
  let forkedPool = try poolMemory(try childWorker(app: "timers"))
  let spawnedPool = try poolMemory(try childWorker(app: "timers").spawningEachWorker())
  return [
    Row(
      name: "start child-worker to greeted: forked from its template", value: forkedStart.start, unit: "ms",
      baseline: milliseconds, goal: .ratio(1.5)),
    Row(name: "start child-worker to greeted: spawned", value: spawnedStart.start, unit: "ms", baseline: milliseconds),
    Row(
      name: "first worker of a composition: start the template, then fork", value: forkedStart.first, unit: "ms",
      baseline: milliseconds),
    Row(name: "first worker of a composition: spawned", value: spawnedStart.first, unit: "ms", baseline: milliseconds),
    Row(name: "child-worker resident memory (RSS) when ready: forked", value: forkedStart.resident, unit: "MB", baseline: nil, hasRatio: false),
    Row(name: "child-worker resident memory (RSS) when ready: spawned", value: spawnedStart.resident, unit: "MB", baseline: nil, hasRatio: false),
    Row(
      name: "private memory (USS) per idle worker, pool of 64: forked", value: forkedPool.unique, unit: "MB",
      baseline: nil, goal: .value(1), hasRatio: false),
    Row(name: "private memory (USS) per idle worker, pool of 64: spawned", value: spawnedPool.unique, unit: "MB", baseline: nil, hasRatio: false),
    Row(
      name: "proportional memory (PSS) of a pool of 64 idle workers, template included: forked",
      value: forkedPool.proportional, unit: "MB", baseline: nil, goal: .value(64), hasRatio: false),
    Row(
      name: "proportional memory (PSS) of a pool of 64 idle workers: spawned", value: spawnedPool.proportional,
      unit: "MB", baseline: nil, hasRatio: false),
  ]
}

/// How long a worker takes to start and greet the host, in milliseconds: the best of twenty
/// restarts of a killed worker (the action that restarts it, less the best plain action),
/// with the best start of a one-worker composition, and the worker's resident memory.
/// `counter1` is placed as `entry` says (with limits, for the limits' rows).
@MainActor
func restartAndMeasure(
  _ command: WorkerCommand, entry: Placement.Entry = .init(path: "counter1")
) throws -> (start: Double, first: Double, resident: Double) {
  let clock = ContinuousClock()
  let placement = Placement(file: "benchmark", entries: [entry])
  var first = Duration.seconds(1000)
  for _ in 0..<5 {
    var composition: Composition?
    first = min(first, try clock.measure { composition = try Composition(root: TwoCounters(), placement: placement, command: command) })
    composition?.shutdown()
  }
  let composition = try Composition(
    root: TwoCounters(), placement: placement, command: command,
    restartPolicy: RestartPolicy(maximumRestarts: 1_000, within: .seconds(600)),
    onOutput: { FileHandle.standardError.write(Data("[\($0.worker)] \($0.text)\n".utf8)) })
  defer { composition.shutdown() }
  let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
  store.send(.counter1(.incrementButtonTapped))
  var plain = Duration.seconds(1000)
  for _ in 0..<200 { plain = min(plain, clock.measure { store.send(.counter1(.incrementButtonTapped)) }) }
  var restart = Duration.seconds(1000)
  var resident = 0.0
  for _ in 0..<20 {
    guard let pid = composition.processes.first?.pids.first else { break }
    resident = max(resident, memory(of: pid, "VmRSS:", in: "status"))
    composition.killWorker(of: "counter1")
    _ = ProcessWatch.waitForExit(of: pid, milliseconds: 5_000)
    restart = min(restart, clock.measure { store.send(.counter1(.incrementButtonTapped)) })
  }
  return (milliseconds(restart - plain), milliseconds(first), resident)
}

/// The mean private memory (USS) of the idle workers of a pool of 64, and the proportional
/// memory (PSS) of them all and of the template they were forked from, in megabytes.
private func poolMemory(_ command: WorkerCommand) throws -> (unique: Double, proportional: Double) {
  let composition = try Composition(
    root: Timers(), placement: Placement(file: "benchmark", entries: [.init(path: "timers", workers: 64)]),
    command: command)
  defer { composition.shutdown() }
  let workers = composition.processes.flatMap(\.pids)
  let template = composition.templatePID.map { [$0] } ?? []
  let unique = workers.map { memory(of: $0, "Private_Clean:") + memory(of: $0, "Private_Dirty:") }
  let proportional = (workers + template).map { memory(of: $0, "Pss:") }
  return (unique.reduce(0, +) / Double(max(1, unique.count)), proportional.reduce(0, +))
}

/// A field in kilobytes of /proc/`pid`/`file` (smaps_rollup unless said), in megabytes; 0 when
/// it cannot be read.
func memory(of pid: Int32, _ field: String, in file: String = "smaps_rollup") -> Double {
  guard let text = try? String(contentsOfFile: "/proc/\(pid)/\(file)", encoding: .utf8),
    let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
    let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({ Double($0) })
  else { return 0 }
  return kilobytes / 1024
}

private func milliseconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}
