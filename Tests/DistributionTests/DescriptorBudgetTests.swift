import Foundation
import TestThreads
import Testing

/// A pool of many workers against the host's descriptor limit, as a person meets it: `up` under
/// a shell's `ulimit`.
@Suite(.onItsOwnThread, .serialized) struct DescriptorBudgetTests {
  /// A soft limit below what the pool needs is raised by the host, as far as the hard one allows.
  @Test func theHostRaisesItsSoftLimitForALargePool() throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    let placement = try compose.placement("timers pool 64\n")
    let up = try compose.bash(["-c", "ulimit -Sn 256 && exec \(Compose.script.path) up timers \(placement)"]).finishSynchronously()
    #expect(up.status == 0, "\(up)")
    let running = try compose.workers().filter(\.isRunning)
    #expect(running.count == 64)
    #expect(try compose("down", "timers").status == 0)
  }

  /// A hard limit too low for the pool is said before any worker starts, at the pool's line.
  @Test func aHardLimitTooLowForThePoolIsSaidAtItsLine() throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    let placement = try compose.placement("# many timers\ntimers pool 64\n")
    let up = try compose.bash(["-c", "ulimit -n 200 && exec \(Compose.script.path) up timers \(placement)"]).finishSynchronously()
    #expect(up.status != 0)
    #expect(
      up.error.contains("\(placement):2: its 64 workers need about ")
        && up.error.contains("descriptors in the host, which may open 200 (ulimit -Hn); raise the limit or make the pools smaller"),
      "\(up)")
    #expect(!up.error.contains("serves timers"), "no worker started\n\(up)")
    #expect(!FileManager.default.fileExists(atPath: compose.runFile("timers")))
  }
}
