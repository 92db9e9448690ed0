import Bulkhead
@testable import BulkheadDistribution
import BulkheadTesting
import Examples
import Foundation
import Testing

/// A loopback composition: each worker is a thread of the test's process, reached over socket
/// pairs through the same endpoints and messages as a worker process.
@MainActor
@Suite struct LoopbackTests {
  private func loopback<Root: Reducer & SendableMetatype>(
    _ root: @escaping @Sendable () -> Root, placement: String, events: Events = Events()
  ) throws -> Composition {
    try Composition(
      root: root(), placement: Placement(parsing: placement, file: "loopback.placement"), command: .loopback(root),
      onEvent: events.append)
  }

  @Test func actionsCrossToAWorkerThatIsAThreadOfThisProcess() throws {
    let composition = try loopback({ TwoCounters() }, placement: "counter1\n")
    defer { composition.shutdown() }
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    store.send(.counter1(.incrementButtonTapped))
    store.send(.counter1(.incrementButtonTapped))
    store.send(.counter2(.incrementButtonTapped))
    #expect(store.state.counter1.count == 2)
    #expect(store.state.counter2.count == 1)
    #expect(composition.statistics(of: "counter1")?.actions == 2)
    #expect(composition.processes.first?.pids == [getpid()])
  }

  @Test func aBoundaryPlacedInsideAPlacedOneRunsInALoopbackOfTheOuterLoopback() async throws {
    let composition = try loopback({ Account() }, placement: "profile\nprofile.avatar\n")
    defer { composition.shutdown() }
    let store = Store(initialState: Account.State()) { composition.compose(Account()) }
    store.send(.profile(.avatar(.edited)))
    await store.send(.profile(.avatar(.uploadTapped))).finish()
    #expect(store.state.profile.avatar.uploadedEdits == 1)
    #expect(store.state.profile.uploadsSeen == 1 && store.state.uploadsSeen == 1)
    #expect(composition.processes.map(\.boundary) == ["profile"])
  }

  @Test func effectActionsStreamThroughTheEndpointsWithTheirOutcomes() async throws {
    let composition = try loopback({ Payload() }, placement: "store\n")
    defer { composition.shutdown() }
    let store = Store(initialState: Payload.State()) { composition.compose(Payload()) }
    await store.send(.store(.stream(count: 50))).finish()
    #expect(store.state.store.streamed == 50)
    #expect(store.state.streamedSeen == 50)
    #expect(composition.statistics(of: "store")?.precomputedActions == 50)
  }

  @Test func aWorkerWhoseConnectionsAreCutIsReplacedFromTheHostsCopy() async throws {
    let events = Events()
    let composition = try loopback({ TwoCounters() }, placement: "counter1\n", events: events)
    defer { composition.shutdown() }
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    store.send(.counter1(.incrementButtonTapped))
    composition.killWorker(of: "counter1")
    store.send(.counter1(.incrementButtonTapped))
    #expect(store.state.counter1.count == 2)
    #expect(events.all.contains { if case .workerRestarted("counter1", _, _) = $0 { true } else { false } })
  }
}
