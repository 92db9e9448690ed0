import Foundation
import TestThreads
import Testing

/// `./compose.sh ps` and `top` without an app list every composition that is up, as
/// `docker ps` does, and mark a boundary that failed; `top` into a pipe prints one plain
/// frame that fits 80 columns.
@Suite(.onItsOwnThread, .serialized) struct CompositionsOverviewTests {
  @Test func psAndTopWithoutAnAppShowEveryCompositionAndAFailedBoundary() throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    let none = try compose("ps")
    #expect(none.status == 0 && none.output.contains("no composition is up"), "\(none)")
    #expect(try compose("up", "timers").status == 0)
    #expect(try compose("up", "two-counters").status == 0)

    let both = try compose("ps")
    let rows = both.output.split(separator: "\n").map(String.init)
    #expect(rows.first?.hasPrefix("APP") == true && rows.count == 3, "\(both)")
    #expect(rows.contains { $0.hasPrefix("timers ") && $0.contains(" 2/2 ") && $0.contains(" up ") }, "\(both)")
    #expect(rows.contains { $0.hasPrefix("two-counters ") && $0.contains(" up ") }, "\(both)")

    // Killed more often than the restart policy allows, counter1 fails.
    var failed = false
    for _ in 0..<400 where !failed {
      let kill = try compose("kill", "two-counters", "counter1")
      failed = kill.error.contains("has failed")
    }
    #expect(failed)
    let overview = try compose("ps")
    #expect(overview.output.split(separator: "\n").contains { $0.hasPrefix("two-counters ") && $0.contains("FAILED: counter1") }, "\(overview)")
    let ps = try compose("ps", "two-counters")
    #expect(ps.output.contains("FAILED: counter1: ") && ps.output.contains(" failed "), "\(ps)")

    for arguments in [["top"], ["top", "timers"], ["top", "two-counters"]] {
      let top = try compose.bash([Compose.script.path] + arguments).finishSynchronously()
      #expect(top.status == 0, "\(top)")
      #expect(!top.output.contains("\u{1B}"), "\(arguments) wrote escape codes into a pipe")
      let wide = top.output.split(separator: "\n").filter { $0.count > 80 }
      #expect(wide.isEmpty, "\(arguments) is wider than 80 columns:\n\(wide.joined(separator: "\n"))")
    }
    let top = try compose.bash([Compose.script.path, "top", "timers"]).finishSynchronously()
    #expect(top.output.contains("ACTIONS/S") && top.output.contains("timers[1]"), "\(top)")
    let every = try compose.bash([Compose.script.path, "top"]).finishSynchronously()
    #expect(every.output.contains("FAILED: counter1") && every.output.contains("timers "), "\(every)")

    #expect(try compose("down", "timers").status == 0)
    #expect(try compose("down", "two-counters").status == 0)
  }
}
