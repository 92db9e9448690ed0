import Foundation
import TestThreads
import Testing

/// `./compose.sh move` as a person runs it, on a real detached host with real workers.
@Suite(.onItsOwnThread, .serialized) struct MoveCommandTests {
  @Test func moveTakesABoundaryToTheHostAndBackWhileTheCompositionRuns() throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    #expect(try compose("up", "two-counters").status == 0)

    let toHost = try compose("move", "two-counters", "counter1", "host")
    #expect(toHost.status == 0 && toHost.output.contains("two-counters: moved counter1 to the host in "), "\(toHost)")
    let kill = try compose("kill", "two-counters", "counter1")
    #expect(kill.status == 64 && kill.error.contains("counter1 runs in the host now (it was moved there) and has no workers"))
    let again = try compose("move", "two-counters", "counter1", "host")
    // What the host refused, as it refused it: not wrapped as a call that failed.
    #expect(again.status == 64 && again.error.hasSuffix(": counter1 runs in the host already\n"), "\(again)")
    let log = try compose.waitForHostLog("two-counters") { $0.contains("retired") }
    #expect(log.contains("counter1 moved to the host in"))

    let toWorker = try compose("move", "two-counters", "counter1", "worker")
    #expect(toWorker.status == 0 && toWorker.output.contains("two-counters: moved counter1 to the worker in "), "\(toWorker)")
    // The new worker takes a kill as any worker does.
    #expect(try compose("kill", "two-counters", "counter1").status == 0)
    #expect(try compose("down", "two-counters").status == 0)
  }

  @Test func aMoveThatCannotBeDoneSaysWhyInOneLine() throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    #expect(try compose("up", "two-counters", compose.placement("counter1\n")).status == 0)
    let unplaced = try compose("move", "two-counters", "counter2", "worker")
    #expect(unplaced.status == 64)
    #expect(
      unplaced.error.hasSuffix(
        ": cannot move counter2: only a boundary the placement puts in workers can move, and this one's are: counter1\n"),
      "\(unplaced)")
    let nowhere = try compose("move", "two-counters", "counter1", "moon")
    #expect(nowhere.status == 64 && nowhere.error.contains("move takes host or worker after the BOUNDARY; got \"moon\""))
    let short = try compose("move", "two-counters", "counter1")
    #expect(short.status == 64 && short.error.contains("move takes a BOUNDARY and where to move it, host or worker"))
    for result in [unplaced] { #expect(result.error.split(separator: "\n").count == 1) }
    #expect(try compose("down", "two-counters").status == 0)
  }
}
