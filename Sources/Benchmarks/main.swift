// The project's benchmark: every figure in one run, as ratios to a baseline measured in the
// same run, because these machines are shared and noisy. Build it in release:
//
//   swift run -c release bulkhead-benchmark [startup | transport | boundaries]
//
// With `startup`, `transport` or `boundaries`, only those figures, unpinned.
//
// It starts copies of itself as worker processes (`--raw-echo`, `--framed-echo`, `--actors`,
// `--sink`), and `child-worker` from the same build directory for the boundary figures.
if let argument = CommandLine.arguments.dropFirst().first, let mode = WorkerMode(rawValue: argument) {
  try await mode.serve()
} else if CommandLine.arguments.dropFirst().first == "startup" {
  let startup = try await startupBenchmarks()
  printTable("Worker start-up", startup + (try childWorkerStartupBenchmarks(bareSpawn: startup[0].value)))
} else if CommandLine.arguments.dropFirst().first == "transport" {
  printTable("Across a process boundary (16-byte messages)", try await transportBenchmarks(label: "unpinned:"))
} else if CommandLine.arguments.dropFirst().first == "boundaries" {
  printTable("Boundaries in worker processes (the Payload example)", try await distributionBenchmarks(label: "unpinned:"))
} else {
  printTable("In-process core (per action)", coreBenchmarks())
  printTable("Codec (one 20-item state)", try codecBenchmarks())
  let startup = try await startupBenchmarks()
  printTable("Worker start-up", startup + (try childWorkerStartupBenchmarks(bareSpawn: startup[0].value)))
  var crossProcess = try await transportBenchmarks(label: "unpinned:")
  var boundaries = try await distributionBenchmarks(label: "unpinned:")
  pinToOneCore()
  crossProcess += try await transportBenchmarks(label: "one core:")
  boundaries += try await distributionBenchmarks(label: "one core:")
  printTable("Across a process boundary (16-byte messages)", crossProcess)
  printTable("Boundaries in worker processes (the Payload example)", boundaries)
}
