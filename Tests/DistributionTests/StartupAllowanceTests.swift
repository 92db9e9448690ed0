import Bulkhead
@testable import BulkheadDistribution
import Examples
import Foundation
import TestThreads
import Testing
import Transport

/// A worker greets the host once the workers placed inside it have started, so its start-up
/// deadline holds theirs too; one that does not greet in time is given up, saying so.
@Suite(.onItsOwnThread) struct StartupAllowanceTests {
  @Test func anOuterWorkerHasTheStartUpsAndDeadlinesOfTheBoundariesInsideIt() throws {
    let placement = try Placement(
      parsing: """
        list
        list.rows pool 2 startup 3s deadline 1s
        list.destination startup 4s
        list.destination.detail.checklist startup 5s deadline 300ms
        sync
        """, file: "nested.placement")
    #expect(Composition.allowance(inside: "list", of: placement, for: \.startupDeadline) == .seconds(9))
    #expect(Composition.allowance(inside: "list", of: placement, for: \.deadline) == .milliseconds(2_300))
    #expect(Composition.allowance(inside: "list.destination", of: placement, for: \.startupDeadline) == .seconds(5))
    #expect(Composition.allowance(inside: "sync", of: placement, for: \.startupDeadline) == .zero)
  }

  @Test func aWorkerThatConnectsButNeverGreetsIsGivenUpAtItsStartUpDeadline() throws {
    let mute = workerExecutable.deletingLastPathComponent().appendingPathComponent("transport-echo-worker")
    #expect {
      _ = try Composition(
        root: TwoCounters(), placement: Placement(parsing: "counter1 startup 300ms\n", file: "two-counters.placement"),
        command: WorkerCommand(executable: mute, arguments: { _ in ["--mute"] }))
    } throws: { error in
      guard case let .workerUnavailable("counter1", failure)? = error as? DistributionError,
        case let .didNotGreet("w0-0", _, deadline) = failure
      else { return false }
      return deadline == .milliseconds(300)
        && "\(failure)".contains("did not greet the host within its start-up deadline of 0.3 seconds")
    }
  }
}
