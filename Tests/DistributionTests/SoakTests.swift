import Foundation
import TestThreads
import Testing
import Transport

/// A thousand restarts, a thousand retirements and a thousand presentations from the warm
/// pool leave the host as it was: descriptors, threads and memory flat, no zombies, no socket
/// files, no child process after shutdown. Run in a process of its own (`bulkhead-soak`), so
/// that no other test's descriptors or threads blur the count.
@Suite(.onItsOwnThread) struct SoakTests {
  /// Figures read from one line of `bulkhead-soak`'s summary.
  struct Summary {
    let fields: [String: [Int]]

    init(_ line: String) {
      var fields: [String: [Int]] = [:]
      let words = line.split(separator: " ")
      for (word, next) in zip(words, words.dropFirst()) {
        if let value = Int(next) { fields[String(word), default: []].append(value) }
      }
      self.fields = fields
    }

    /// The values of `name`, in order: the one count, or before, after and after shutdown.
    subscript(name: String) -> [Int] { fields[name] ?? [] }
  }

  static let rounds = Int(ProcessInfo.processInfo.environment["BULKHEAD_SOAK_ROUNDS"] ?? "") ?? 1_000

  @Test(arguments: ["restarts", "retirements", "presentations"])
  func aThousandWorkersLeaveNothingBehind(mode: String) async throws {
    let (lines, continuation) = AsyncStream<String>.makeStream()
    let soak = try WorkerProcess(
      name: "soak", executable: workerExecutable.deletingLastPathComponent().appendingPathComponent("bulkhead-soak"),
      arguments: [mode, "\(Self.rounds)"], socketPath: "", secret: .random()
    ) { line in
      if line.stream == .standardOutput { continuation.yield(line.text) }
    }
    Task {
      _ = await soak.waitForExit()
      continuation.finish()
    }
    var summary: Summary?
    for await line in lines where line.hasPrefix(mode) { summary = Summary(line) }
    #expect(await soak.waitForExit() == .exited(status: 0))
    let figures = try #require(summary)
    #expect(figures["applied"] == [Self.rounds])
    #expect(figures["failures"] == [0])
    #expect(figures["sockets"] == [0])
    let descriptors = figures["fds"]
    let threads = figures["threads"]
    let memory = figures["rss-kb"]
    try #require(descriptors.count == 3 && threads.count == 3 && memory.count == 3)
    if mode == "presentations" {
      // Counted once idle (every worker let go has ended, the warm pool refilled): exactly.
      #expect(descriptors[1] == descriptors[0], "descriptors before, after, after shutdown: \(descriptors)")
    } else {
      // A little slack for the last workers' pipes and readers, which close as they see the end.
      #expect(descriptors[1] <= descriptors[0] + 8, "descriptors before, after, after shutdown: \(descriptors)")
    }
    #expect(descriptors[2] <= descriptors[0] + 4, "descriptors before, after, after shutdown: \(descriptors)")
    #expect(threads[1] <= threads[0] + 4, "threads before, after, after shutdown: \(threads)")
    #expect(memory[1] <= memory[0] + 8_192, "resident KB before, after, after shutdown: \(memory)")
    #expect(figures["zombies"].last == 0)
    #expect(figures["leftover"] == [0])
  }
}
