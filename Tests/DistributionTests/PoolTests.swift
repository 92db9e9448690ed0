import Bulkhead
@testable import BulkheadDistribution
import Examples
import Foundation
import Synchronization
import Testing

/// A `forEach` placed in a pool of workers: its elements spread over every worker, and a
/// worker killed while actions and effects are in flight is restarted once.
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

  @Test func oneKillIsOneRestartWhateverIsInFlight() async throws {
    let events = Events()
    let composition = try composition(app: "timers", placement: "timers pool 2\n", events: events)
    defer { composition.shutdown() }
    let remote = try #require(composition.remote("timers"))
    let store = Store(initialState: Timers.State()) { composition.compose(Timers()) }
    for _ in 1...8 { store.send(.addTimerTapped) }
    // Every row's effect sleeps in its worker: the kill finds effects in flight.
    for id in 1...8 { store.send(.timers(.element(id: id, action: .startTapped))) }
    // And actions: the store sends to every row, both workers, while the worker is killed.
    let traffic = Task { @MainActor in
      var sent = 0
      while !Task.isCancelled {
        store.send(.timers(.element(id: sent % 8 + 1, action: .tick)))
        sent += 1
        await Task.yield()
      }
      return sent
    }
    let killed = await Task.detached { remote.killAndRestart(worker: 1) }.value
    #expect(killed != nil)
    #expect(await events.first(where: Self.isRestart) != nil)
    traffic.cancel()
    let sent = await traffic.value
    // Every action that found the worker dead waited for its successor, and went on.
    #expect(store.state.totalTicks >= sent)
    for id in 1...8 { store.send(.timers(.element(id: id, action: .stopTapped))) }

    let restarts = events.all.filter(Self.isRestart)
    #expect(restarts.count == 1, "\(restarts)")
    guard case let .workerRestarted(_, _, reason)? = restarts.first else { return }
    #expect(reason == .killedOnRequest)
    #expect(remote.places.map(\.restarts) == [0, 1])
    // The effects of the killed worker's four rows were lost, and said so: together those
    // that had started, one by one any that were still starting. (`first` asks once an event.)
    let lost = Mutex(0)
    let allLost = await events.first { event in
      guard case let .effectsLost("timers", count) = event else { return false }
      return lost.withLock { lost in
        lost += count
        return lost == 4
      }
    }
    #expect(allLost != nil, "\(events.all)")
    // No second start raced the first for the worker's socket.
    #expect(!events.all.contains { if case .connectionRefused = $0 { true } else { false } }, "\(events.all)")
  }

  @Test func concurrentKillsOfOneWorkerCountOneRestart() async throws {
    let events = Events()
    // Room for a restart per killer, should every killer find a worker (see below).
    let composition = try composition(
      app: "timers", placement: "timers pool 2\n", events: events,
      restartPolicy: RestartPolicy(maximumRestarts: 4, within: .seconds(10)))
    defer { composition.shutdown() }
    let remote = try #require(composition.remote("timers"))
    let store = Store(initialState: Timers.State()) { composition.compose(Timers()) }
    for _ in 1...8 { store.send(.addTimerTapped) }
    let victim = try #require(remote.places[1].pid)

    let killers = 4
    let killed = Mutex<[Int32]>([])
    let go = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<killers {
      Thread.detachNewThread {
        go.wait()
        if let pid = remote.killAndRestart(worker: 1)?.pid { killed.withLock { $0.append(pid) } }
        done.signal()
      }
    }
    for _ in 0..<killers { go.signal() }
    for _ in 0..<killers { done.wait() }
    // Kills that came while the successor started found no worker to kill; one that came
    // after it had started (a thread held up on a loaded machine) killed the successor.
    let workersKilled = Set(killed.withLock { $0 })
    #expect(workersKilled.contains(victim))
    #expect(await events.nth(workersKilled.count, where: Self.isRestart) != nil)
    for id in 1...8 { store.send(.timers(.element(id: id, action: .tick))) }
    #expect(store.state.totalTicks == 8)

    #expect(events.all.filter(Self.isRestart).count == workersKilled.count, "\(events.all)")
    #expect(remote.places.map(\.restarts) == [0, workersKilled.count])
    #expect(!events.all.contains { if case .connectionRefused = $0 { true } else { false } }, "\(events.all)")
  }

  private nonisolated static func isRestart(_ event: BoundaryEvent) -> Bool {
    if case .workerRestarted = event { true } else { false }
  }
}

/// Which worker answered each remote action.
private final class WorkerTrips: BoundaryInstrument {
  private let trips = Mutex<[RemoteActionTrip]>([])

  var actionsPerWorker: [Int: Int] { trips.withLock { $0.reduce(into: [:]) { $0[$1.worker, default: 0] += 1 } } }
  var pids: [Int32] { trips.withLock { $0.map(\.pid) } }

  func remoteActionAnswered(_ trip: RemoteActionTrip) { trips.withLock { $0.append(trip) } }
}
