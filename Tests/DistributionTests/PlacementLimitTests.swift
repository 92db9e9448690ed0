import BulkheadDistribution
import Testing

/// The limits a placement sets: per boundary, and for every boundary on the `*` line.
@Suite struct PlacementLimitTests {
  @Test func readsLimitsInTheirUnitsAndTheStarLineForEveryBoundaryThatSetsNoneOfItsOwn() throws {
    let placement = try Placement(
      parsing: "counter1 memory 128MB cpu 20%\n* memory 1GB files 256 cpu 150%\ncounter2 files 64 memory 32768KB\nrows\n",
      file: "x.placement")
    #expect(placement.entries == [
      Placement.Entry(path: "counter1", memoryLimit: 128 << 20, cpuPercent: 20, fileLimit: 256, line: 1),
      Placement.Entry(path: "counter2", memoryLimit: 32 << 20, cpuPercent: 150, fileLimit: 64, line: 3),
      Placement.Entry(path: "rows", memoryLimit: 1 << 30, cpuPercent: 150, fileLimit: 256, line: 4),
    ])
  }

  @Test func withoutLimitsAnEntryHasNone() throws {
    let placement = try Placement(parsing: "counter1\n", file: "x.placement")
    #expect(placement.entries == [Placement.Entry(path: "counter1", line: 1)])
    #expect(placement.entries[0].memoryLimit == nil && placement.entries[0].cpuPercent == nil)
  }

  @Test(arguments: [
    ("counter1 memory 128\n", 1, DistributionError.PlacementProblem.invalidLimit(key: "memory", value: "128")),
    ("counter1 memory 128mb\n", 1, .invalidLimit(key: "memory", value: "128mb")),
    ("counter1 memory 8MB\n", 1, .invalidLimit(key: "memory", value: "8MB")),
    ("counter1 memory 2048GB\n", 1, .invalidLimit(key: "memory", value: "2048GB")),
    ("counter1 memory 1.5GB\n", 1, .invalidLimit(key: "memory", value: "1.5GB")),
    ("counter1 memory +64MB\n", 1, .invalidLimit(key: "memory", value: "+64MB")),
    ("counter1 cpu 20\n", 1, .invalidLimit(key: "cpu", value: "20")),
    ("counter1 cpu 0%\n", 1, .invalidLimit(key: "cpu", value: "0%")),
    ("counter1 cpu 6401%\n", 1, .invalidLimit(key: "cpu", value: "6401%")),
    ("counter1 files 8\n", 1, .invalidLimit(key: "files", value: "8")),
    ("counter1 files 2000000\n", 1, .invalidLimit(key: "files", value: "2000000")),
    ("counter1 files 64 files 65\n", 1, .setTwice(key: "files", path: "counter1")),
    ("counter1\n* pool 2\n", 2, .notALimit(key: "pool")),
    ("* memory 64MB\ncounter1\n* files 64\n", 3, .placedTwice(path: "*", firstLine: 1)),
    ("* memory 64\n", 1, .invalidLimit(key: "memory", value: "64")),
  ])
  func aLimitThatDoesNotParseOrIsOutOfRangeSaysWhatAndWhere(
    text: String, line: Int, problem: DistributionError.PlacementProblem
  ) {
    #expect(throws: DistributionError.placement(file: "x.placement", line: line, reason: problem)) {
      try Placement(parsing: text, file: "x.placement")
    }
  }

  @Test func theWordsOfALimitProblem() {
    #expect(
      "\(DistributionError.placement(file: "x.placement", line: 1, reason: .invalidLimit(key: "memory", value: "8MB")))"
        == "x.placement:1: memory must be a size from 16MB to 1TB such as 128MB or 1GB, not \"8MB\"")
    #expect(
      "\(DistributionError.placement(file: "x.placement", line: 2, reason: .notALimit(key: "pool")))"
        == "x.placement:2: \"*\" sets limits for every boundary: \"memory SIZE\", \"cpu PERCENT%\" or \"files N\", not \"pool\"")
    #expect(
      "\(DistributionError.placement(file: "x.placement", line: 2, reason: .memoryBelowFloor(path: "hog", bytes: 32 << 20, floor: 64 << 20, mechanism: "RLIMIT_DATA")))"
        .hasPrefix("x.placement:2: the memory limit of \"hog\", 32 MB, is below 64 MB, the least a worker runs in where memory is bounded by RLIMIT_DATA"))
  }

  @Test func aLimitEventSaysWhichWorkerWhichLimitAndTheFigure() {
    let event = BoundaryEvent.limitExceeded(boundary: "counter1", pid: 4242, limit: .memory(bytes: 128 << 20))
    #expect("\(event)" == "counter1 worker 4242 exceeded its memory limit (128 MB)")
    #expect("\(RestartReason.exceededLimit(.memory(bytes: 1 << 30)))" == "it exceeded its memory limit (1 GB)")
    #expect(event.boundary == "counter1")
  }
}
