import Dispatch
import Foundation
import Testing
import TestThreads

@Suite struct OwnThreadTests {
  @TaskLocal static var marker = "none"

  /// More blocked bodies than the cooperative pool has threads, each released only by a task
  /// that needs a pool thread to run: run inline, they would hold every pool thread and wait
  /// out their deadline; on their own threads, the releasing task runs at once.
  @Test func bodiesThatBlockLeaveThePoolFree() async {
    let bodies = ProcessInfo.processInfo.activeProcessorCount + 1
    let released = DispatchSemaphore(value: 0)
    let answered = await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<bodies {
        group.addTask {
          await onOwnThread { released.wait(timeout: .now() + 30) == .success }
        }
      }
      group.addTask {
        for _ in 0..<bodies { released.signal() }
        return true
      }
      return await group.reduce(into: 0) { count, released in count += released ? 1 : 0 }
    }
    #expect(answered == bodies + 1, "bodies released only at their deadline: \(bodies + 1 - answered)")
  }

  /// The body runs in the calling task: it sees the task's values, and what it throws or
  /// returns comes back to the caller.
  @Test func theBodyRunsInTheCallingTask() async throws {
    let seen = await Self.$marker.withValue("caller") { await onOwnThread { Self.marker } }
    #expect(seen == "caller")
    struct Refused: Error {}
    await #expect(throws: Refused.self) { try await onOwnThread { () throws(Refused) in throw Refused() } }
  }
}
