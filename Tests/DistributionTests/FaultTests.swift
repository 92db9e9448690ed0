@_spi(Testing) import Bulkhead
import BulkheadDistribution
import Examples
import Foundation
import Testing
import TransportTestSupport

/// Workers die — `kill -9` at random points — and the host loses nothing it committed.
@MainActor
@Suite(.serialized) struct FaultTests {
  @Test func killedWorkersAreRestartedFromTheHostsCopyAndTheActionIsRunAgain() async throws {
    let events = Events()
    let composition = try composition(
      app: "two-counters", placement: "counter1\ncounter2\n", events: events,
      restartPolicy: RestartPolicy(maximumRestarts: 1_000, within: .seconds(60)))
    defer { composition.shutdown() }
    let local = Store(initialState: TwoCounters.State()) { TwoCounters() }
    let remote = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    var generator = SeededGenerator(seed: 9)
    var kills = 0
    for _ in 0..<300 {
      if Int.random(in: 0..<20, using: &generator) == 0 {
        composition.killWorker(of: Bool.random(using: &generator) ? "counter1" : "counter2")
        kills += 1
      }
      let counter: Counter.Action = Bool.random(using: &generator) ? .incrementButtonTapped : .decrementButtonTapped
      let action: TwoCounters.Action = Bool.random(using: &generator) ? .counter1(counter) : .counter2(counter)
      local.send(action)
      remote.send(action)
    }
    #expect(kills > 5)
    #expect(remote.state == local.state)
    let reasons = events.all.compactMap { event -> RestartReason? in
      if case let .workerRestarted(_, _, reason) = event { reason } else { nil }
    }
    #expect(!reasons.isEmpty)
    // A worker killed from outside is gone, however its death was first noticed: never
    // taken for one that stalled or broke the protocol.
    #expect(
      reasons.allSatisfy {
        switch $0 {
        case .connectionEnded, .connectionFailed: true
        default: false
        }
      }, "\(reasons)")
  }

  @Test func aFailedBoundaryLetsTheRestOfItsPoolGo() async throws {
    let events = Events()
    let composition = try composition(
      app: "timers", placement: "timers pool 2\n", events: events,
      restartPolicy: RestartPolicy(maximumRestarts: 0, within: .seconds(60)))
    defer { composition.shutdown() }
    let store = Store(initialState: Timers.State()) { composition.compose(Timers()) }
    for _ in 1...4 { store.send(.addTimerTapped) }
    let workers = try #require(composition.processes.first?.pids)
    try #require(workers.count == 2)
    // Timer 2 is served by the first worker of the pool, timer 1 by the second (timers are
    // spread by id); timer 2's effect runs in the worker that is let go.
    store.send(.timers(.element(id: 2, action: .startTapped)))
    composition.killWorker(of: "timers", index: 1)
    _ = await events.first { $0 == .workerExited(boundary: "timers", pid: workers[1]) }
    store.send(.timers(.element(id: 1, action: .startTapped)))
    #expect(await events.first { if case .boundaryFailed = $0 { true } else { false } } != nil)
    // The other worker serves nothing any more: it is let go, not left running, and the effect
    // it was running is reported lost, not ended in silence.
    #expect(await events.first { $0 == .workerExited(boundary: "timers", pid: workers[0]) } != nil)
    #expect(await events.first { $0 == .effectsLost(boundary: "timers", count: 1) } != nil)
    #expect(composition.processes.first?.pids == [])
  }

  @Test func pastItsRestartLimitABoundaryFailsAndTheRestOfTheTreeGoesOn() async throws {
    let events = Events()
    let composition = try composition(
      app: "two-counters", placement: "counter1\ncounter2\n", events: events,
      restartPolicy: RestartPolicy(maximumRestarts: 1, within: .seconds(60)))
    defer { composition.shutdown() }
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    store.send(.counter1(.incrementButtonTapped))
    for _ in 0..<2 {
      let pid = try #require(composition.processes.first?.pids.first)
      composition.killWorker(of: "counter1")
      _ = await events.first { $0 == .workerExited(boundary: "counter1", pid: pid) }
      store.send(.counter1(.incrementButtonTapped))
    }
    // The first restart re-ran the action; the second failure was one too many.
    #expect(store.state.counter1.count == 2)
    #expect(events.all.contains { if case .boundaryFailed(boundary: "counter1", _) = $0 { true } else { false } })
    store.send(.counter1(.incrementButtonTapped))
    store.send(.counter2(.incrementButtonTapped))
    #expect(store.state.counter1.count == 2)
    #expect(store.state.counter2.count == 1)
  }

  @Test func effectsLostWithAWorkerAreReported() async throws {
    let events = Events()
    let composition = try composition(app: "timers", placement: "timers\n", events: events)
    defer { composition.shutdown() }
    let store = Store(initialState: Timers.State()) { composition.compose(Timers()) }
    store.send(.addTimerTapped)
    store.send(.timers(.element(id: 1, action: .startTapped)))
    #expect(store.runningEffectCount == 1)
    composition.killWorker(of: "timers")
    #expect(await events.first { if case .effectsLost = $0 { true } else { false } } == .effectsLost(boundary: "timers", count: 1))
    store.send(.timers(.element(id: 1, action: .tick)))
    #expect(store.state.timers[id: 1]?.ticks == 1)
  }

  @Test func effectsEndedByAShutdownAreNotReportedLost() async throws {
    let events = Events()
    let composition = try composition(app: "timers", placement: "timers\n", events: events)
    let store = Store(initialState: Timers.State()) { composition.compose(Timers()) }
    store.send(.addTimerTapped)
    store.send(.timers(.element(id: 1, action: .startTapped)))
    #expect(store.runningEffectCount == 1)
    composition.shutdown()
    #expect(await events.first { if case .workerExited = $0 { true } else { false } } != nil)
    #expect(!events.all.contains { if case .effectsLost = $0 { true } else { false } }, "\(events.all)")
  }

  @Test func shutdownLeavesNoWorkerAndNoSocket() throws {
    let composition = try composition(app: "timers", placement: "timers pool 3\n")
    let pids = composition.processes.flatMap(\.pids)
    let directory = try #require(composition.socketDirectory)
    #expect(pids.count == 3)
    composition.shutdown()
    #expect(allExited(pids))
    #expect(!FileManager.default.fileExists(atPath: directory))
  }

  @Test func aWorkerBuiltForAnotherBoundaryIsRefusedBeforeItSeesAnAction() throws {
    let events = Events()
    // The worker serves dashboard's `profile`, where two-counters' `counter1` is expected: as
    // a worker built from other code would.
    let command = WorkerCommand(executable: workerExecutable) { _ in ["--bulkhead-worker", "dashboard", "profile"] }
    #expect {
      _ = try Composition(
        root: TwoCounters(), placement: Placement(parsing: "counter1\n", file: "wrong.placement"),
        command: command, onEvent: events.append)
    } throws: { error in
      guard case let .workerUnavailable("counter1", .servesAnother("w0-0", "child-worker", serves, expected))? =
        error as? DistributionError
      else { return false }
      return serves.hasPrefix("profile ") && expected.hasPrefix("counter1 ")
    }
    #expect(!events.all.contains { if case .workerStarted = $0 { true } else { false } })
  }
}
