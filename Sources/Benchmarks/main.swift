// The project's benchmark: every figure in one run, as ratios to a baseline measured in the
// same run, because these machines are shared and noisy. Build it in release:
//
//   swift run -c release bulkhead-benchmark
printTable("In-process core (per action)", coreBenchmarks())
