// The project's benchmark: every figure in one run, as ratios to a baseline measured in the
// same run, because these machines are shared and noisy. Build it in release:
//
//   swift run -c release bulkhead-benchmark
//
// It starts copies of itself as worker processes (`--raw-echo`, `--framed-echo`, `--actors`,
// `--sink`).
if let argument = CommandLine.arguments.dropFirst().first, let mode = WorkerMode(rawValue: argument) {
  try await mode.serve()
} else {
  printTable("In-process core (per action)", coreBenchmarks())
  printTable("Codec (one 20-item state)", try codecBenchmarks())
  printTable("Worker start-up", try await startupBenchmarks())
  var crossProcess = try await transportBenchmarks(label: "unpinned:")
  pinToOneCore()
  crossProcess += try await transportBenchmarks(label: "one core:")
  printTable("Across a process boundary (16-byte messages)", crossProcess)
}
