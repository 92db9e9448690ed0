import Foundation
import TestThreads
import Testing
import Transport

/// `parent-host` as a user runs it: Ctrl-C, SIGTERM or a closed terminal stops every worker
/// and removes the sockets.
@Suite(.onItsOwnThread) struct HostProcessTests {
  @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
  func aSignalledHostLeavesNoWorkerAndNoSocket(signal: Int32) async throws {
    let placement = FileManager.default.temporaryDirectory
      .appendingPathComponent("bulkhead-test-\(getpid())-\(signal).placement")
    try "timers pool 2\n".write(to: placement, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: placement) }
    let (lines, continuation) = AsyncStream<String>.makeStream()
    let host = try WorkerProcess(
      name: "host",
      executable: workerExecutable.deletingLastPathComponent().appendingPathComponent("parent-host"),
      arguments: ["--app", "timers", "--placement", placement.path, "--hold"],
      socketPath: "", secret: .random()
    ) { continuation.yield($0.text) }
    // Should the host exit early, the lines end instead of leaving the test waiting.
    Task {
      _ = await host.waitForExit()
      continuation.finish()
    }
    var pids: [Int32] = []
    var directory: String?
    for await line in lines {
      if line.contains("worker pid") {
        pids = line.split(separator: " ").suffix(2).compactMap { Int32($0.trimmingCharacters(in: .punctuationCharacters)) }
      }
      if let range = line.range(of: "sockets in ") { directory = String(line[range.upperBound...]) }
      if line.hasPrefix("holding") { break }
    }
    #expect(pids.count == 2)
    kill(host.pid, signal)
    #expect(await host.waitForExit() == .exited(status: 128 + signal))
    #expect(allExited(pids))
    let socketDirectory = try #require(directory)
    #expect(!FileManager.default.fileExists(atPath: socketDirectory))
  }
}
