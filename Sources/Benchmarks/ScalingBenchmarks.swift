import Bulkhead
import BulkheadDistribution
import CoreBenchmarks
import Examples
import Foundation

/// What each worker costs the host as a composition grows: the host's descriptors, threads
/// and proportional memory (PSS) with the Timers app's `forEach` placed over pools of 1, 16
/// and 64 idle forked workers, per worker beyond the first; how long a pool of 64 takes to
/// start, per worker, against a pool of one; and a pool of 1,024 whole.
@MainActor
func scalingBenchmarks() throws -> [Row] {
  let one = try hostCost(pool: 1)
  let sixteen = try hostCost(pool: 16)
  let many = try hostCost(pool: 64)
  let largest = try hostCost(pool: Placement.largestPool, rounds: 1)
  let extra = Double(many.pool - one.pool)
  return [one, sixteen, many].map { cost in
    Row(
      name: "host with a pool of \(cost.pool): descriptors \(cost.descriptors), threads \(cost.threads); its PSS",
      value: cost.hostPSS, unit: "MB", baseline: nil, hasRatio: false)
  } + [
    Row(
      name: "host descriptors per worker (pools of 1 → \(many.pool))",
      value: Double(many.descriptors - one.descriptors) / extra, unit: "", baseline: nil, goal: .value(4), hasRatio: false),
    Row(
      name: "host threads per worker (pools of 1 → \(many.pool))",
      value: Double(many.threads - one.threads) / extra, unit: "", baseline: nil, goal: .value(1), hasRatio: false),
    Row(
      name: "host PSS per worker (pools of 1 → \(many.pool))",
      value: (many.hostPSS - one.hostPSS) * 1024 / extra, unit: "KB", baseline: nil, goal: .value(200), hasRatio: false),
    Row(name: "start a composition with a pool of 1 (its template, then a fork), all greeted", value: one.start, unit: "ms", baseline: nil),
    Row(
      name: "start a pool of \(many.pool), all greeted, per worker", value: many.start / Double(many.pool), unit: "ms",
      baseline: one.start),
    Row(
      name: "start a pool of \(largest.pool) idle forked workers, all greeted", value: largest.start / 1000, unit: "s",
      baseline: nil, hasRatio: false),
    Row(
      name: "pool of \(largest.pool): host descriptors \(largest.descriptors), threads \(largest.threads); host PSS",
      value: largest.hostPSS, unit: "MB", baseline: nil, hasRatio: false),
    Row(
      name: "pool of \(largest.pool): PSS of the host, its template and every worker", value: largest.totalPSS, unit: "MB",
      baseline: nil, hasRatio: false),
  ]
}

/// A composition with a pool of idle workers, as the host sees it once they have all started.
private struct PoolCost {
  let pool: Int
  let descriptors: Int
  let threads: Int
  /// In megabytes.
  let hostPSS: Double
  let totalPSS: Double
  /// From `Composition.init` to every worker greeted, in milliseconds: the best of the rounds.
  let start: Double
}

/// The host's open descriptors, threads and PSS once a pool of `pool` workers has started, and
/// how long the start took, the best of `rounds`: measured in a copy of this benchmark started
/// for it (`--pool-host`), so that what earlier parts of the run left in this process's heap
/// does not blur the host's memory.
@MainActor
private func hostCost(pool: Int, rounds: Int = 3) throws -> PoolCost {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
  process.arguments = ["--pool-host", String(pool), String(rounds)]
  let output = Pipe()
  process.standardOutput = output
  try process.run()
  let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  let fields = printed.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
  guard process.terminationStatus == 0, fields.count == 5 else {
    throw DistributionError.usage("bulkhead-benchmark --pool-host \(pool) printed \"\(printed)\"")
  }
  return PoolCost(
    pool: pool, descriptors: Int(fields[0]), threads: Int(fields[1]), hostPSS: fields[2], totalPSS: fields[3],
    start: fields[4])
}

/// What `--pool-host POOL ROUNDS` does in its own process: starts a composition with a pool of
/// `pool` workers `rounds` times, and prints the host's descriptors, threads, PSS (MB), the
/// PSS of it, its template and every worker (MB), and the best start (ms), on one line.
@MainActor
func servePoolHost(pool: Int, rounds: Int) throws {
  let placement = Placement(file: "benchmark", entries: [.init(path: "timers", workers: pool)])
  let command = try childWorker(app: "timers")
  let clock = ContinuousClock()
  var start = Duration.seconds(1000)
  var seen = (descriptors: 0, threads: 0, host: 0.0, total: 0.0)
  for _ in 0..<rounds {
    var started: Composition?
    start = min(start, try clock.measure { started = try Composition(root: Timers(), placement: placement, command: command) })
    guard let composition = started else { continue }
    let host = memory(of: getpid(), "Pss:")
    let others = composition.processes.flatMap(\.pids) + (composition.templatePID.map { [$0] } ?? [])
    seen = (entries(in: "/proc/self/fd"), entries(in: "/proc/self/task"), host, others.reduce(host) { $0 + memory(of: $1, "Pss:") })
    composition.shutdown()
  }
  let (seconds, attoseconds) = start.components
  print(seen.descriptors, seen.threads, seen.host, seen.total, Double(seconds) * 1e3 + Double(attoseconds) / 1e15)
}

private func entries(in directory: String) -> Int {
  (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? 0
}
