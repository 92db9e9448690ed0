// The project's benchmark: every figure in one run, as ratios to a baseline measured in the
// same run, because these machines are shared and noisy. Build it in release:
//
//   swift run -c release bulkhead-benchmark [core | startup | scaling | limits | transport | patches | boundaries | nested | async-dependencies | presenting]
//   swift run -c release bulkhead-benchmark remote-action [ITERATIONS [ITEMS]]
//   swift run -c release bulkhead-benchmark effect-stream [ACTIONS]
//   swift run -c release bulkhead-benchmark instrumentation
//
// With a part's name, only its figures (`boundaries` includes the async dependencies;
// `presenting` re-presents Notes' sheet with the destination or its editor placed, and presents
// an `ifLet` child); `remote-action` and `effect-stream` measure those rows alone, as long as
// asked, for profiling (`remote-action` beside a child state of ITEMS integers, 0 unless given);
// `instrumentation` measures only what the timings and the trace add to a remote action.
//
// It starts copies of itself as worker processes (`--raw-echo`, `--framed-echo`, `--actors`,
// `--sink`) and as hosts of a pool whose cost it measures (`--pool-host`), and
// `child-worker` from the same build directory for the boundary figures.
import CoreBenchmarks

if let argument = CommandLine.arguments.dropFirst().first, let mode = WorkerMode(rawValue: argument) {
  try await mode.serve()
} else if CommandLine.arguments.dropFirst().first == "--pool-host", CommandLine.arguments.count == 4,
  let pool = Int(CommandLine.arguments[2]), let rounds = Int(CommandLine.arguments[3])
{
  try servePoolHost(pool: pool, rounds: rounds)
} else if CommandLine.arguments.dropFirst().first == "core" {
  printTable("In-process core (per action)", coreBenchmarks() + storeBenchmarks() + timingPrimitiveBenchmarks())
} else if CommandLine.arguments.dropFirst().first == "startup" {
  let startup = try await startupBenchmarks()
  printTable("Worker start-up", startup + (try childWorkerStartupBenchmarks(bareSpawn: startup[0].value)))
} else if CommandLine.arguments.dropFirst().first == "scaling" {
  printTable("What each worker costs the host (pools of idle forked workers)", try scalingBenchmarks())
  printTable("Many workers streaming effect actions at once (the Timers example)", try await streamingBenchmarks())
} else if CommandLine.arguments.dropFirst().first == "limits" {
  printTable("Limits on workers", try limitBenchmarks())
} else if CommandLine.arguments.dropFirst().first == "transport" {
  CPULayout.twoCores.apply()
  var crossProcess = try await transportBenchmarks(label: "two cores:")
  CPULayout.oneCore.apply()
  crossProcess += try await transportBenchmarks(label: "one core:")
  printTable("Across a process boundary (16-byte messages)", crossProcess)
  printTable("One distributed actor call, part by part (one process)", try await actorCallBenchmarks())
} else if CommandLine.arguments.dropFirst().first == "patches" {
  printTable("Patches (one change in a large state; the baseline sends the changed field whole)", try patchBenchmarks())
} else if CommandLine.arguments.dropFirst().first == "remote-action" {
  let iterations = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 20_000
  let items = Int(CommandLine.arguments.dropFirst(3).first ?? "") ?? 0
  printTable(
    "One remote action",
    try await onTwoCoresThenOne { try await remoteActionBenchmarks(label: $0, iterations: iterations, items: items) })
} else if CommandLine.arguments.dropFirst().first == "effect-stream" {
  let streamed = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 2_000
  printTable("A stream of effect actions", try await onTwoCoresThenOne { try await effectStreamBenchmarks(label: $0, streamed: streamed) })
} else if CommandLine.arguments.dropFirst().first == "nested" {
  printTable("Nested placement (the Account example)", try await onTwoCoresThenOne { try nestedBenchmarks(label: $0) })
} else if CommandLine.arguments.dropFirst().first == "instrumentation" {
  let rows = try await onTwoCoresThenOne { try instrumentationBenchmarks(label: $0, command: childWorker()) }
  printTable("What the timings and the trace add to a remote action (the Payload example)", rows)
} else if CommandLine.arguments.dropFirst().first == "presenting" {
  printTable("Presenting a sheet right after the last was dismissed (Notes)", try presentationBenchmarks())
} else if CommandLine.arguments.dropFirst().first == "boundaries" {
  CPULayout.twoCores.apply()
  var boundaries = try await distributionBenchmarks(label: "two cores:")
  var asyncCalls = try await asyncDependencyBenchmarks(label: "two cores:")
  CPULayout.oneCore.apply()
  boundaries += try await distributionBenchmarks(label: "one core:")
  asyncCalls += try await asyncDependencyBenchmarks(label: "one core:")
  printTable("Boundaries in worker processes (the Payload example)", boundaries)
  printTable("Async dependencies across a boundary (the Lobby example)", asyncCalls)
} else if CommandLine.arguments.dropFirst().first == "async-dependencies" {
  printTable(
    "Async dependencies across a boundary (the Lobby example)",
    try await onTwoCoresThenOne { try await asyncDependencyBenchmarks(label: $0) })
} else {
  printTable("In-process core (per action)", coreBenchmarks() + storeBenchmarks() + timingPrimitiveBenchmarks())
  printTable("Codec (one 20-item state)", try codecBenchmarks())
  printTable("Patches (one change in a large state; the baseline sends the changed field whole)", try patchBenchmarks())
  let startup = try await startupBenchmarks()
  printTable("Worker start-up", startup + (try childWorkerStartupBenchmarks(bareSpawn: startup[0].value)))
  printTable("What each worker costs the host (pools of idle forked workers)", try scalingBenchmarks())
  printTable("Many workers streaming effect actions at once (the Timers example)", try await streamingBenchmarks())
  printTable("Limits on workers", try limitBenchmarks())
  CPULayout.twoCores.apply()
  var crossProcess = try await transportBenchmarks(label: "two cores:")
  var boundaries = try await distributionBenchmarks(label: "two cores:")
  var nested = try nestedBenchmarks(label: "two cores:")
  var asyncCalls = try await asyncDependencyBenchmarks(label: "two cores:")
  CPULayout.oneCore.apply()
  crossProcess += try await transportBenchmarks(label: "one core:")
  boundaries += try await distributionBenchmarks(label: "one core:")
  nested += try nestedBenchmarks(label: "one core:")
  asyncCalls += try await asyncDependencyBenchmarks(label: "one core:")
  printTable("Across a process boundary (16-byte messages)", crossProcess)
  printTable("One distributed actor call, part by part (one process)", try await actorCallBenchmarks())
  printTable("Boundaries in worker processes (the Payload example)", boundaries)
  printTable("Nested placement (the Account example)", nested)
  printTable("Async dependencies across a boundary (the Lobby example)", asyncCalls)
  printTable("Presenting a sheet right after the last was dismissed (Notes)", try presentationBenchmarks())
}
