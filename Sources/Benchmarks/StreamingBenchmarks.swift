import Bulkhead
import BulkheadDistribution
import CoreBenchmarks
import Examples
import Foundation

/// Effect actions streamed by many workers at once: the Timers app's `forEach` over pools of 1,
/// 8 and 64 workers, two timers a worker, each ticking as fast as it can (its sleeps end at
/// once: a sleep is a question to the host, whose clock here never waits), and the host's time
/// per tick of them all. Goal: 64 workers keep at least 80 % of the rate of 8, so that their
/// time per tick is at most 1.25× theirs.
@MainActor
func streamingBenchmarks() async throws -> [Row] {
  let command = try childWorker(app: "timers")
  var rows: [Row] = []
  var eight: Double?
  for pool in [1, 8, 64] {
    let perTick = try await microsecondsPerTick(pool: pool, command: command)
    if pool == 8 { eight = perTick }
    rows.append(
      Row(
        name: "effect actions of \(pool) worker\(pool == 1 ? "" : "s") streaming at once, per action (\(String(format: "%.0f", 1e6 / perTick))/s)",
        value: perTick, unit: "µs", baseline: pool == 64 ? eight : nil, goal: pool == 64 ? .ratio(1.25) : nil,
        hasRatio: pool != 1))
  }
  return rows
}

/// The host's wall time per tick, in microseconds, over the best of three one-second windows
/// while every timer of a pool of `pool` workers ticks.
@MainActor
private func microsecondsPerTick(pool: Int, command: WorkerCommand) async throws -> Double {
  let composition = try Composition(
    root: Timers(), placement: Placement(file: "benchmark", entries: [.init(path: "timers", workers: pool)]),
    command: command)
  defer { composition.shutdown() }
  let store = Store(initialState: Timers.State()) { composition.compose(Timers()) } withDependencies: {
    $0.continuousClock = ImmediateClock()
  }
  for _ in 0..<(2 * pool) { store.send(.addTimerTapped) }
  let ids = store.state.timers.ids
  for id in ids { store.send(.timers(.element(id: id, action: .startTapped))) }
  let clock = ContinuousClock()
  try await Task.sleep(for: .milliseconds(200))
  var best = Double.infinity
  for _ in 0..<3 {
    let (start, ticks) = (clock.now, store.state.totalTicks)
    try await Task.sleep(for: .seconds(1))
    let (seconds, attoseconds) = start.duration(to: clock.now).components
    let elapsed = Double(seconds) * 1e6 + Double(attoseconds) / 1e12
    best = min(best, elapsed / Double(max(1, store.state.totalTicks - ticks)))
  }
  for id in ids { store.send(.timers(.element(id: id, action: .stopTapped))) }
  return best
}

/// A clock whose sleeps end at once (cancelled ones throw): effects that sleep in a loop run
/// as fast as they can.
private struct ImmediateClock: Clock {
  struct Instant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> Self { Self(offset: offset + duration) }
    func duration(to other: Self) -> Duration { other.offset - offset }
    static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }
  }

  var now: Instant { Instant(offset: .zero) }
  var minimumResolution: Duration { .zero }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    try Task.checkCancellation()
    await Task.yield()
  }
}
