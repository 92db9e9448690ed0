import Bulkhead
import BulkheadDistribution
import CoreBenchmarks
import Examples

/// An effect that awaits one call of an async crossing dependency (the Lobby's quote client,
/// answering at once) and sends the answer as an action: with the desk in one process, the
/// baseline; with the desk in a worker, where the host answers the call in a task of its own;
/// and, for comparison, the same effect with a synchronous crossing call (the greeter). Then
/// one call apart from its effect's cost: an effect that makes 100 calls in a row, per call,
/// in one process and in a worker.
@MainActor
func asyncDependencyBenchmarks(label: String) async throws -> [Row] {
  let calls = 2_000
  let instant = QuoteClient(fetch: { "\($0)!" }, feed: { _ in AsyncThrowingStream { $0.finish() } })
  let local = Store(initialState: Lobby.State()) { Lobby() } withDependencies: { $0.quotes = instant }
  let composition = try Composition(
    root: Lobby(), placement: Placement(file: "benchmark", entries: [.init(path: "desk")]),
    command: childWorker(app: "lobby"))
  defer { composition.shutdown() }
  for pid in composition.processes.flatMap(\.pids) { CPULayout.place(worker: pid) }
  let remote = Store(initialState: Lobby.State()) { composition.compose(Lobby()) } withDependencies: {
    $0.quotes = instant
    $0.greeter = Greeter { "Hi \($0)" }
  }

  let inOneProcess = await microsecondsPerEffect(local, .quoteTapped("Blob"), calls: calls)
  let inAWorker = await microsecondsPerEffect(remote, .quoteTapped("Blob"), calls: calls)
  let synchronous = await microsecondsPerEffect(remote, .greet("Blob"), calls: calls)
  let baseline = inOneProcess
  // One call apart from its effect: an effect that makes 100 in a row, per call.
  let inARow = 100
  let oneInOneProcess = await microsecondsPerEffect(local, .askQuotes("Blob", times: inARow), calls: calls / 10) / Double(inARow)
  let oneInAWorker = await microsecondsPerEffect(remote, .askQuotes("Blob", times: inARow), calls: calls / 10) / Double(inARow)
  return [
    Row(
      name: "\(label) an effect's async dependency call and its action, in one process", value: baseline,
      unit: "µs", baseline: nil),
    Row(
      name: "\(label) the same, desk in a worker: the host answers the call (AsyncCrossingDependencyKey)",
      value: inAWorker, unit: "µs", baseline: baseline),
    Row(
      name: "\(label) the same with a synchronous call, desk in a worker (CrossingDependencyKey)",
      value: synchronous, unit: "µs", baseline: baseline),
    Row(
      name: "\(label) one async dependency call (of \(inARow) in a row in one effect), in one process",
      value: oneInOneProcess, unit: "µs", baseline: nil),
    Row(
      name: "\(label) the same, desk in a worker: the host answers each call",
      value: oneInAWorker, unit: "µs", baseline: oneInOneProcess),
  ]
}

/// The best of three runs of `calls` effects, per effect, after a warm-up: each sends `action`
/// and waits for its effect to end.
@MainActor
private func microsecondsPerEffect(
  _ store: Store<Lobby.State, Lobby.Action>, _ action: Lobby.Desk.Action, calls: Int
) async -> Double {
  for _ in 0..<100 { await store.send(.desk(action)).finish() }
  let clock = ContinuousClock()
  var best = Duration.seconds(1000)
  for _ in 0..<3 {
    best = min(best, await clock.measure { for _ in 0..<calls { await store.send(.desk(action)).finish() } })
  }
  return (Double(best.components.seconds) * 1e6 + Double(best.components.attoseconds) / 1e12) / Double(calls)
}
