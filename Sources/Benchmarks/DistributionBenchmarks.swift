import Bulkhead
import BulkheadDistribution
import CoreBenchmarks
import Examples
import Foundation
import Transport

/// One action through a boundary placed in a worker, effect-produced actions routed back
/// through the host, and what a large child state costs; all against the raw round trip of 16
/// bytes over a Unix socket measured in the same run.
@MainActor
func distributionBenchmarks(label: String) async throws -> [Row] {
  let iterations = 5_000
  let measuredRaw = try await rawRoundTripWithCPU(iterations: 20_000)
  var raw = measuredRaw.nanoseconds
  let composition = try payloadComposition()
  defer { composition.shutdown() }
  let small = Store(initialState: Payload.State()) { composition.compose(Payload()) }
  let worker = composition.processes.first?.pids.first ?? 0
  let twoCores = !label.hasPrefix("one")
  let remote = remoteActionRow(label: label, store: small, worker: worker, iterations: iterations, goal: twoCores ? nil : .ratio(1.5))
  let spinningRaw = try await rawRoundTripWithCPU(iterations: 20_000, spinning: true)
  let spinning = spinningRawRow(label: label, nanoseconds: spinningRaw.nanoseconds)
  var rows = [remote.row, spinning]
  // Like for like: Bulkhead's waits spin before they sleep, so on two cores its floor is the
  // spinning raw trip; and the CPU each side spends, against the raw trip's on that side.
  if twoCores {
    rows.append(
      Row(
        name: "\(label) remote action round trip against the spinning raw round trip", value: remote.row.value,
        unit: "µs", baseline: spinning.value, goal: .ratio(2)))
  }
  // The CPU floor is the spinning raw trip's too: a side that spins while it waits spends CPU
  // that a sleeping one does not (the sleeping trip's is shown beside it).
  let sides = [
    ("host", remote.cpu.host, spinningRaw.cpu.host, measuredRaw.cpu.host),
    ("worker", remote.cpu.worker, spinningRaw.cpu.worker, measuredRaw.cpu.worker),
  ]
  for (side, spent, floor, sleeping) in sides {
    rows.append(
      Row(
        name: "\(label) CPU per remote action, \(side), against the spinning raw round trip's \(side) side (\(String(format: "%.1f", floor / 1000)) µs; sleeping: \(String(format: "%.1f", sleeping / 1000)) µs)",
        value: spent / 1000, unit: "µs", baseline: floor / 1000, goal: .ratio(1.5)))
  }

  rows.append(await effectStreamRow(label: label, store: small, worker: worker, streamed: 2_000, rounds: 3))

  var emptyChild: Double?
  for items in [0, 250, 25_000, 250_000] {
    let state = Payload.State(items: items)
    let encoded = try BinaryEncoder().encode(state.store).count
    let store = Store(initialState: state) { composition.compose(Payload()) }
    // The first action sends the whole child state, and the first actions after a pause of a
    // few milliseconds cost the host several times a steady one (seen with a probe: 90–260 µs
    // of CPU for the first). Every size is timed alike, after the same warm-up and over as
    // many actions, so that no size's row weighs that transient more than another's.
    for _ in 0..<20 { store.send(.store(.bump)) }
    let count = 500
    let cpuBefore = processCPUTime()
    let perAction = nanosecondsPerCall(iterations: count, rounds: 1) { store.send(.store(.bump)) }
    let cpuPerAction = (processCPUTime() - cpuBefore) / Double(count)
    let patch = composition.statistics(of: "store")?.lastWorkerPatchBytes ?? 0
    let size = encoded >= 1 << 20 ? "\(encoded >> 20) MB" : encoded >= 1 << 10 ? "\(encoded >> 10) KB" : "\(encoded) B"
    rows.append(Row(name: "\(label) one field changed in a \(size) child state: round trip (patch \(patch) B, host CPU \(String(format: "%.0f", cpuPerAction / 1000)) µs)", value: perAction / 1000, unit: "µs", baseline: nil))
    if items == 0 { emptyChild = perAction / 1000 }
    if items == 250_000, let emptyChild {
      rows.append(
        Row(
          name: "\(label) one field changed beside a \(size) child state against beside an empty one", value: perAction / 1000,
          unit: "µs", baseline: emptyChild, goal: .ratio(1.2)))
    }
  }
  raw = min(raw, try await rawRoundTrip(iterations: 20_000))
  let baseline = Row(name: "\(label) raw 16-byte round trip", value: raw / 1000, unit: "µs", baseline: nil)
  let instrumented = try instrumentationBenchmarks(label: label, command: childWorker())
  // Rows that name their own baseline keep it; the rest are against the raw round trip.
  return [baseline] + rows.map { $0.baseline != nil ? $0 : Row(name: $0.name, value: $0.value, unit: $0.unit, baseline: raw / 1000, goal: $0.goal) }
    + instrumented
}

/// The remote action round trip alone, beside a child state of `items` integers, against the
/// raw round trip, for as many `iterations` as a profile needs (`bulkhead-benchmark remote-action`).
@MainActor
func remoteActionBenchmarks(label: String, iterations: Int, items: Int = 0) async throws -> [Row] {
  let raw = try await rawRoundTrip(iterations: 20_000)
  let row = try await withPayloadStore(items: items) { store, worker in
    remoteActionRow(label: label, store: store, worker: worker, iterations: iterations, goal: nil).row
  }
  let spinning = spinningRawRow(label: label, nanoseconds: try await rawRoundTrip(iterations: 20_000, spinning: true))
  return [Row(name: "\(label) raw 16-byte round trip", value: raw / 1000, unit: "µs", baseline: nil)]
    + [row, spinning].map { Row(name: $0.name, value: $0.value, unit: $0.unit, baseline: raw / 1000, goal: $0.goal) }
}

/// The stream of effect actions alone, against the raw round trip, for as many actions as a
/// profile needs (`bulkhead-benchmark effect-stream`).
@MainActor
func effectStreamBenchmarks(label: String, streamed: Int) async throws -> [Row] {
  let raw = try await rawRoundTrip(iterations: 20_000)
  let row = try await withPayloadStore { store, worker in
    await effectStreamRow(label: label, store: store, worker: worker, streamed: streamed, rounds: 3)
  }
  return [
    Row(name: "\(label) raw 16-byte round trip", value: raw / 1000, unit: "µs", baseline: nil),
    Row(name: row.name, value: row.value, unit: row.unit, baseline: raw / 1000, goal: row.goal),
  ]
}

/// `body` with a store of the Payload example, its child state holding `items` integers, whose
/// `store` boundary is in a worker, and that worker's pid; the composition ends when `body` returns.
@MainActor
private func withPayloadStore<Result>(
  items: Int = 0, _ body: (Store<Payload.State, Payload.Action>, Int32) async throws -> Result
) async throws -> Result {
  let composition = try payloadComposition()
  defer { composition.shutdown() }
  let store = Store(initialState: Payload.State(items: items)) { composition.compose(Payload()) }
  return try await body(store, composition.processes.first?.pids.first ?? 0)
}

/// `streamed` effect actions sent one after another by an effect in the worker, each through
/// the host's root reducer: the best of `rounds` streams, per action, with each side's CPU.
@MainActor
private func effectStreamRow(
  label: String, store: Store<Payload.State, Payload.Action>, worker: Int32, streamed: Int, rounds: Int
) async -> Row {
  let clock = ContinuousClock()
  var best = Duration.seconds(1000)
  let cpuBefore = (host: processCPUTime(), worker: processCPUTime(of: worker))
  for _ in 0..<rounds {
    best = min(best, await clock.measure { await store.send(.store(.stream(count: streamed))).finish() })
  }
  let cpu = (
    host: (processCPUTime() - cpuBefore.host) / Double(rounds * streamed),
    worker: (processCPUTime(of: worker) - cpuBefore.worker) / Double(rounds * streamed)
  )
  return Row(
    name: "\(label) a stream of \(streamed) effect actions through the host, per action (CPU: host \(String(format: "%.1f", cpu.host / 1000)) µs, worker \(String(format: "%.1f", cpu.worker / 1000)) µs)",
    value: microseconds(best) / Double(streamed), unit: "µs", baseline: nil,
    goal: .ratio(label.hasPrefix("one") ? 0.5 : 0.2))
}

/// The Payload example with its `store` boundary in a worker, placed as the layout in force
/// says.
private func payloadComposition() throws -> Composition {
  let composition = try Composition(
    root: Payload(), placement: Placement(file: "benchmark", entries: [.init(path: "store")]),
    command: childWorker())
  for pid in composition.processes.flatMap(\.pids) { CPULayout.place(worker: pid) }
  return composition
}

/// The raw round trip with both sides spinning before they read: what the remote action's
/// own waits are like, so the floor to read its figure against.
private func spinningRawRow(label: String, nanoseconds: Double) -> Row {
  Row(
    name: "\(label) raw 16-byte round trip, both sides spinning before they read, as Bulkhead's waits do (BriefSpin)",
    value: nanoseconds / 1000, unit: "µs", baseline: nil)
}

/// One `.store(.bump)` through the boundary, with the CPU each side spends on it (ns).
@MainActor
private func remoteActionRow(
  label: String, store: Store<Payload.State, Payload.Action>, worker: Int32, iterations: Int, goal: Row.Goal?
) -> (row: Row, cpu: (host: Double, worker: Double)) {
  store.send(.store(.bump))
  let cpuBefore = (host: processCPUTime(), worker: processCPUTime(of: worker))
  let roundTrip = nanosecondsPerCall(iterations: iterations, rounds: 3) { store.send(.store(.bump)) }
  let cpu = (
    host: (processCPUTime() - cpuBefore.host) / Double(3 * iterations),
    worker: (processCPUTime(of: worker) - cpuBefore.worker) / Double(3 * iterations)
  )
  let row = Row(
    name: "\(label) remote action round trip (send → patch applied; CPU per action: host \(String(format: "%.1f", cpu.host / 1000)) µs, worker \(String(format: "%.1f", cpu.worker / 1000)) µs)",
    value: roundTrip / 1000, unit: "µs", baseline: nil, goal: goal)
  return (row, cpu)
}

/// The `child-worker` built beside this benchmark, serving `app`.
func childWorker(app: String = "payload") throws -> WorkerCommand {
  let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("child-worker")
  guard FileManager.default.isExecutableFile(atPath: executable.path) else {
    throw DistributionError.missingExecutable(
      path: executable.path, build: "swift build -c release --product child-worker, or ./compose.sh bench")
  }
  return .executable(executable, app: app)
}

private func microseconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
}

/// CPU time this process, or process `pid`, has used, in nanoseconds.
func processCPUTime(of pid: Int32? = nil) -> Double {
  var clock = CLOCK_PROCESS_CPUTIME_ID
  if let pid, clock_getcpuclockid(pid, &clock) != 0 { return 0 }
  var time = timespec()
  clock_gettime(clock, &time)
  return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
}
