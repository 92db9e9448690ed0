import Bulkhead
@testable import BulkheadDistribution
import Examples
import Foundation
import TestThreads
import Testing
import Transport

/// A worker built from other code, whose endpoint lacks the methods the host calls, is
/// refused at the handshake with the method's name, not at the first action.
@Suite(.onItsOwnThread) struct EndpointMismatchTests {
  @Test func aWorkerWhoseEndpointLacksTheHostsMethodIsRefusedAtTheHandshake() throws {
    let stranger = workerExecutable.deletingLastPathComponent().appendingPathComponent("transport-echo-worker")
    let events = Events()
    #expect {
      _ = try Composition(
        root: TwoCounters(), placement: Placement(parsing: "counter1\n", file: "two-counters.placement"),
        command: WorkerCommand(executable: stranger, arguments: { _ in ["--stranger"] }), onEvent: events.append)
    } throws: { error in
      guard case let .workerUnavailable("counter1", .noGreeting("w0-0", "transport-echo-worker", refusal))? =
        error as? DistributionError
      else { return false }
      return refusal
        == "\(RemoteCallError.noSuchMethod(actor: "TransportTestSupport.Calculator", target: "BulkheadDistribution.BoundaryEndpoint.hello()"))"
    }
    #expect(!events.all.contains { if case .workerStarted = $0 { true } else { false } })
  }
}
