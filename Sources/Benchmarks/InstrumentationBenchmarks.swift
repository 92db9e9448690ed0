import Bulkhead
import BulkheadDistribution
import BulkheadTools
import CoreBenchmarks
import Examples
import Foundation

/// What the timings and the trace cost on the path of an action: the same remote action round
/// trip as in `distributionBenchmarks` with nothing recorded, with the composition's timings
/// (the default), and traced to a file, in one run; and the two operations every crossing adds.
@MainActor
func instrumentationBenchmarks(label: String, command: WorkerCommand) throws -> [Row] {
  let iterations = 5_000
  let trace = FileManager.default.temporaryDirectory.appendingPathComponent("bulkhead-benchmark-\(getpid()).json").path
  defer { try? FileManager.default.removeItem(atPath: trace) }
  let writer = try TraceWriter(path: trace, host: "benchmark")
  let setups: [(name: String, recordsTimings: Bool, instrument: (any BoundaryInstrument)?)] = [
    ("nothing recorded", false, nil), ("timings recorded (the default)", true, nil),
    ("timings and a trace (--trace)", true, writer),
  ]
  var rows: [Row] = []
  for setup in setups {
    let composition = try Composition(
      root: Payload(), placement: Placement(file: "benchmark", entries: [.init(path: "store")]), command: command,
      recordsTimings: setup.recordsTimings, instrument: setup.instrument)
    defer { composition.shutdown() }
    for pid in composition.processes.flatMap(\.pids) { CPULayout.place(worker: pid) }
    let store = Store(initialState: Payload.State()) { composition.compose(Payload()) }
    store.send(.store(.bump))
    let cpuBefore = processCPUTime()
    let perAction = nanosecondsPerCall(iterations: iterations, rounds: 3) { store.send(.store(.bump)) }
    // Host CPU per action: what the instruments add, even on a machine too busy for latencies to tell.
    let cpu = (processCPUTime() - cpuBefore) / Double(3 * iterations) / 1000
    rows.append(
      Row(
        name: "\(label) remote action round trip, \(setup.name) (host CPU \(String(format: "%.1f", cpu)) µs)",
        value: perAction / 1000, unit: "µs", baseline: nil))
  }
  try writer.finish()
  let bytes = (try? FileManager.default.attributesOfItem(atPath: trace)[.size] as? Int) ?? 0
  rows.append(
    Row(
      name: "\(label) trace written for \(3 * iterations + 1) round trips", value: Double(bytes) / Double(1 << 20),
      unit: "MB", baseline: nil, hasRatio: false))
  let baseline = rows[0].value
  return rows.enumerated().map { index, row in
    // The trace's cost has a goal: at most 1.2× the round trip with nothing recorded.
    index == 0 || row.unit != "µs"
      ? row
      : Row(
        name: row.name, value: row.value, unit: row.unit, baseline: baseline,
        goal: row.name.contains("--trace") ? .ratio(1.2) : nil)
  }
}

/// The clock read and the histogram record that every timed crossing adds.
func timingPrimitiveBenchmarks() -> [Row] {
  let iterations = 1_000_000
  let read = nanosecondsPerCall(iterations: iterations) { blackHole(MonotonicInstant.now) }
  var histogram = LogHistogram()
  var value: UInt64 = 1
  let record = nanosecondsPerCall(iterations: iterations) {
    value = value &* 6_364_136_223_846_793_005 &+ 1
    histogram.record(value >> 40)
  }
  blackHole(histogram.count)
  return [
    Row(name: "read the monotonic clock (MonotonicInstant.now)", value: read, unit: "ns", baseline: nil, hasRatio: false),
    Row(name: "record one value in a LogHistogram", value: record, unit: "ns", baseline: nil, hasRatio: false),
  ]
}
