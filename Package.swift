// swift-tools-version: 6.0
import PackageDescription

/// Release builds optimise across module boundaries, so generic reducers from `Bulkhead` are
/// specialised into the features that use them (the role `@inlinable` plays in TCA).
let crossModuleOptimization: [SwiftSetting] = [
  .unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))
]

let package = Package(
  name: "Bulkhead",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "Bulkhead", targets: ["Bulkhead", "BulkheadDistribution"]),
    .library(name: "BulkheadTesting", targets: ["BulkheadTesting"]),
    .library(name: "BulkheadTools", targets: ["BulkheadTools"]),
    .executable(name: "parent-host", targets: ["parent-host"]),
    .executable(name: "child-worker", targets: ["child-worker"]),
    .executable(name: "bulkhead-benchmark", targets: ["bulkhead-benchmark"]),
  ],
  targets: [
    // The Linux calls Swift cannot import: the parent-death signal, pidfd_open.
    .target(name: "CSystem"),
    // Counts heap allocations per thread by standing in for malloc: the benchmark's alone.
    .target(name: "CAllocationCounter"),
    // Bytes and processes: sockets, framing, codec, launching workers. Knows no reducers.
    .target(
      name: "Transport", dependencies: ["CSystem"], path: "Sources/Transport",
      swiftSettings: crossModuleOptimization),
    // A worker for the transport's own tests: authenticates, then echoes frames.
    .executableTarget(name: "transport-echo-worker", dependencies: ["Transport", "TransportTestSupport"]),
    .target(name: "TransportTestSupport", dependencies: ["Transport"]),
    // Reducers in one process: the core, which knows nothing of processes. The module is
    // named `Bulkhead` because the toolchain already ships a module called `Runtime`.
    .target(name: "Bulkhead", path: "Sources/Runtime", swiftSettings: crossModuleOptimization),
    // Boundaries in worker processes: the host's and the worker's side, wire messages,
    // patches, instruments, and the control endpoint a host offers.
    .target(
      name: "BulkheadDistribution", dependencies: ["Bulkhead", "Transport"],
      path: "Sources/Distribution", swiftSettings: crossModuleOptimization),
    // The operator's tools over the runtime: the command line of a host or worker executable
    // (`HostCommand`, `BoundaryWorker.main`) and its apps (`ScriptedApp`), `up`/`ps`/`top`/
    // `logs` and the control client, the study, record and replay, and trace files.
    .target(
      name: "BulkheadTools", dependencies: ["Bulkhead", "BulkheadDistribution", "Transport"], path: "Sources/Tools"),
    // `TestStore` and the test clock; links XCTest and Swift Testing, so only tests use it.
    .target(name: "BulkheadTesting", dependencies: ["Bulkhead"]),
    // The seed programs, shared by the executables, the tests and the benchmark.
    .target(name: "Examples", dependencies: ["Bulkhead"], swiftSettings: crossModuleOptimization),
    // The seed programs as apps of the command line: apart from `Examples`, so that the
    // benchmark's specialisations of them do not depend on the tools.
    .target(name: "ExampleApps", dependencies: ["Examples", "BulkheadTools"]),
    .executableTarget(name: "parent-host", dependencies: ["BulkheadTools", "ExampleApps"]),
    .executableTarget(name: "child-worker", dependencies: ["BulkheadDistribution", "BulkheadTools", "ExampleApps"]),
    // Restarts and retires workers in a process of its own and reports what the host holds.
    .executableTarget(name: "bulkhead-soak", dependencies: ["Bulkhead", "BulkheadDistribution", "Examples", "Transport"]),
    // Stands in for a worker and relays its frames to the host, damaging some: for chaos tests.
    .executableTarget(name: "chaos-relay", dependencies: ["Transport", "TransportTestSupport"]),
    // The benchmark's in-process figures and its measuring tools, a module of their own so that
    // changing the distribution layer does not recompile the nested scopes' specialisations.
    .target(
      name: "CoreBenchmarks", dependencies: ["Bulkhead", "Examples", "CAllocationCounter"],
      swiftSettings: crossModuleOptimization),
    .executableTarget(
      name: "bulkhead-benchmark",
      dependencies: [
        "Bulkhead", "BulkheadDistribution", "BulkheadTools", "CoreBenchmarks", "Examples", "Transport",
        "TransportTestSupport", "CSystem",
      ],
      path: "Sources/Benchmarks", swiftSettings: crossModuleOptimization),
    .testTarget(name: "BulkheadTests", dependencies: ["Bulkhead", "BulkheadTesting", "Examples", "TransportTestSupport"]),
    // The seed examples' test scripts, run in one process and across processes.
    .target(name: "ExampleScripts", dependencies: ["Examples", "BulkheadTesting"], path: "Tests/ExampleScripts"),
    // Tests that block their thread run on threads of their own, off the cooperative pool.
    .target(name: "TestThreads", dependencies: ["Transport"], path: "Tests/TestThreads"),
    .testTarget(name: "ExamplesTests", dependencies: ["Examples", "BulkheadTesting", "ExampleScripts"]),
    .testTarget(
      name: "DistributionTests",
      dependencies: [
        "Bulkhead", "BulkheadDistribution", "BulkheadTesting", "BulkheadTools", "ExampleApps", "ExampleScripts",
        "Examples", "Transport",
        "child-worker", "parent-host", "bulkhead-soak", "chaos-relay", "TransportTestSupport", "TestThreads",
      ]),
    .testTarget(
      name: "TransportTests",
      dependencies: ["CSystem", "Transport", "TransportTestSupport", "TestThreads", "transport-echo-worker"]),
  ],
  swiftLanguageModes: [.v6]
)
