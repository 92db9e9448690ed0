import Bulkhead
@testable import BulkheadDistribution
import Examples
import Foundation
import Synchronization
import Testing

/// A `forEach` placed in a pool of workers: its elements spread over every worker.
@MainActor
@Suite(.serialized) struct PoolTests {
  @Test func aPoolOfTwoServesIDsOneToEightOnBothWorkers() async throws {
    let trips = WorkerTrips()
    let composition = try Composition(
      root: Timers(), placement: Placement(parsing: "timers pool 2\n", file: "timers.placement"),
      command: .executable(workerExecutable, app: "timers"), instrument: trips)
    defer { composition.shutdown() }
    let store = Store(initialState: Timers.State()) { composition.compose(Timers()) }
    for _ in 1...8 { store.send(.addTimerTapped) }
    for id in 1...8 { store.send(.timers(.element(id: id, action: .tick))) }
    #expect(store.state.totalTicks == 8)
    // Four rows each: neither worker is idle, and a kill loses only its half.
    #expect(trips.actionsPerWorker == [0: 4, 1: 4])
    let pids = try #require(composition.processes.first?.pids)
    #expect(Set(trips.pids) == Set(pids))
  }
}

/// Which worker answered each remote action.
private final class WorkerTrips: BoundaryInstrument {
  private let trips = Mutex<[RemoteActionTrip]>([])

  var actionsPerWorker: [Int: Int] { trips.withLock { $0.reduce(into: [:]) { $0[$1.worker, default: 0] += 1 } } }
  var pids: [Int32] { trips.withLock { $0.map(\.pid) } }

  func remoteActionAnswered(_ trip: RemoteActionTrip) { trips.withLock { $0.append(trip) } }
}
