@testable import BulkheadDistribution
@testable import BulkheadTools
import Foundation
import TestThreads
import Testing
import Transport

/// `--trace FILE` on the host's command line, and the timings table the host prints at the
/// end, on SIGUSR1 and on Ctrl-C: `parent-host` run as a user runs it.
@Suite(.onItsOwnThread) struct TraceCommandLineTests {
  @Test func theHostTakesATraceFileWithAnApp() throws {
    #expect(
      try HostRequest(parsing: ["--trace", "t.json", "--app", "timers"], program: "host")
        == .run(app: "timers", placement: nil, hold: false, trace: "t.json"))
    #expect(throws: DistributionError.self) { try HostRequest(parsing: ["--trace", "t.json"], program: "host") }
    #expect(throws: DistributionError.self) { try HostRequest(parsing: ["--app", "timers", "--trace"], program: "host") }
  }

  @Test func aRunWritesAValidTraceAndPrintsTheTimings() async throws {
    let trace = temporaryTracePath("run")
    defer { try? FileManager.default.removeItem(atPath: trace) }
    let host = try HostRun(["--app", "two-counters", "--placement", "counter1\ncounter2\n", "--trace", trace])
    let lines = await host.linesUntilExit()
    #expect(await host.process.waitForExit() == .exited(status: 0))
    #expect(lines.contains { $0.hasPrefix("timings:") })
    #expect(lines.contains { $0.contains("counter1") && $0.contains("µs") })
    #expect(lines.contains("trace written to \(trace): open it in ui.perfetto.dev or chrome://tracing"))
    let processes = try traceProcesses(trace)
    #expect(processes.count == 3 && processes.contains(Int(host.process.pid)))
  }

  @Test func sigusr1PrintsTheTimingsAndCtrlCLeavesAValidTrace() async throws {
    let trace = temporaryTracePath("interrupted")
    defer { try? FileManager.default.removeItem(atPath: trace) }
    let host = try HostRun(["--app", "timers", "--placement", "timers\n", "--trace", trace, "--hold"])
    // One table on SIGUSR1, after which the host holds on; one more on Ctrl-C.
    var tables = 0
    for await line in host.lines {
      if line.hasPrefix("holding") { kill(host.process.pid, SIGUSR1) }
      if line.hasPrefix("timings:") {
        tables += 1
        if tables == 1 { kill(host.process.pid, SIGINT) }
      }
    }
    #expect(tables == 2)
    #expect(await host.process.waitForExit() == .exited(status: 128 + SIGINT))
    #expect(try traceProcesses(trace).count == 2)
  }
}

/// `parent-host` started with `arguments`, its output lines as they come; a `--placement`
/// value is written to a temporary file first.
private struct HostRun {
  let process: WorkerProcess
  let lines: AsyncStream<String>
  private let placement: URL

  init(_ arguments: [String]) throws {
    placement = FileManager.default.temporaryDirectory.appendingPathComponent("bulkhead-trace-\(getpid())-\(UUID()).placement")
    var arguments = arguments
    if let index = arguments.firstIndex(of: "--placement") {
      try arguments[index + 1].write(to: placement, atomically: true, encoding: .utf8)
      arguments[index + 1] = placement.path
    }
    let (lines, continuation) = AsyncStream<String>.makeStream()
    self.lines = lines
    process = try WorkerProcess(
      name: "host", executable: workerExecutable.deletingLastPathComponent().appendingPathComponent("parent-host"),
      arguments: arguments, socketPath: "", secret: .random()
    ) { continuation.yield($0.text) }
    // The lines end when the host exits, so a test reading them never waits in vain.
    Task { [process, placement] in
      _ = await process.waitForExit()
      try? FileManager.default.removeItem(at: placement)
      continuation.finish()
    }
  }

  func linesUntilExit() async -> [String] {
    var all: [String] = []
    for await line in lines { all.append(line) }
    return all
  }
}

/// The pids named as processes in the trace at `path`, which must parse as JSON.
private func traceProcesses(_ path: String) throws -> Set<Int> {
  let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
  let events = try #require(document?["traceEvents"] as? [[String: Any]])
  return Set(events.filter { $0["name"] as? String == "process_name" }.compactMap { $0["pid"] as? Int })
}
