import Bulkhead
import BulkheadDistribution
import Examples
import Foundation
import Testing
import Transport

/// A worker that stalls, stops or keeps failing cannot hold the host: every request has a
/// deadline, a stalled worker is killed and restarted like a crashed one, and shutdown ends
/// within a bound whatever the workers do.
@MainActor
@Suite(.serialized) struct IsolationTests {
  @Test func aStoppedWorkerIsKilledAtTheDeadlineAndTheActionRunsInItsSuccessor() async throws {
    let events = Events()
    let composition = try composition(
      app: "two-counters", placement: "counter1 deadline 300ms\ncounter2\n", events: events)
    defer { composition.shutdown() }
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    store.send(.counter1(.incrementButtonTapped))
    let stopped = try #require(composition.processes.first?.pids.first)
    kill(stopped, SIGSTOP)

    store.send(.counter1(.incrementButtonTapped))

    #expect(store.state.counter1.count == 2)
    #expect(events.all.contains(.workerStalled(boundary: "counter1", pid: stopped, deadline: .milliseconds(300))))
    #expect(events.all.contains { if case .workerRestarted("counter1", _, _) = $0 { true } else { false } })
    #expect(composition.processes.first?.pids.first != stopped)
    #expect(allExited([stopped]))
    #expect(composition.statistics(of: "counter1")?.stalls == 1)
  }

  @Test func aWorkerThatNeverAnswersFailsItsBoundaryAndTheRestOfTheTreeGoesOn() async throws {
    // Every worker of counter1 is stopped as soon as it has started, as a reducer that never
    // returns would leave it.
    let events = Events { event in
      if case let .workerStarted("counter1", pid) = event { kill(pid, SIGSTOP) }
    }
    let composition = try composition(
      app: "two-counters", placement: "counter1 deadline 200ms\ncounter2\n", events: events,
      restartPolicy: RestartPolicy(maximumRestarts: 2, within: .seconds(60)))
    defer { composition.shutdown() }
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }

    store.send(.counter1(.incrementButtonTapped))
    store.send(.counter2(.incrementButtonTapped))

    #expect(store.state.counter1.count == 0)
    #expect(store.state.counter2.count == 1)
    #expect(events.all.filter { if case .workerStalled = $0 { true } else { false } }.count == 3)
    #expect(events.all.contains { if case .boundaryFailed("counter1", _) = $0 { true } else { false } })
  }

  @Test func shutdownEndsWithinABoundWhenEveryWorkerIsStopped() throws {
    let composition = try composition(app: "timers", placement: "timers pool 3\n")
    let pids = composition.processes.flatMap(\.pids)
    let directory = try #require(composition.socketDirectory)
    for pid in pids { kill(pid, SIGSTOP) }

    let started = ContinuousClock.now
    composition.shutdown()

    #expect(ContinuousClock.now - started < .seconds(5))
    #expect(pids.allSatisfy { ProcessWatch.waitForExit(of: $0, milliseconds: 0) })
    #expect(!FileManager.default.fileExists(atPath: directory))
  }

  @Test func eachSuccessorOfARetiredWorkerOutlivesTheThreadThatStartedIt() async throws {
    let events = Events()
    let composition = try composition(app: "detail", placement: "detail\n", events: events)
    defer { composition.shutdown() }
    let store = Store(initialState: DetailPresenter.State()) { composition.compose(DetailPresenter()) }
    for round in 1...5 {
      store.send(.showDetailTapped)
      store.send(.detail(.descriptionChanged("round \(round)")))
      #expect(store.state.detail?.description == "round \(round)")
      store.send(.detail(.closeButtonTapped))
    }
    store.send(.showDetailTapped)
    store.send(.detail(.descriptionChanged("after")))
    // Each round ran in the successor started after the one before, on a thread that ended
    // when that worker was ready: none of them died with it.
    let started = events.all.compactMap { if case let .workerStarted(_, pid) = $0 { pid } else { nil } }
    #expect(started.count == 6)
    #expect(composition.processes.first?.pids == started.suffix(1))
    #expect(!ProcessWatch.waitForExit(of: started[5], milliseconds: 0))
    #expect(!events.all.contains { if case .boundaryFailed = $0 { true } else { false } })
    #expect(!events.all.contains { if case .workerRestarted = $0 { true } else { false } })
  }
}

/// A worker stopped while its effects were meant to run is noticed without any action.
@MainActor
@Suite struct LivenessTests {
  @Test func aStoppedIdleWorkerIsNoticedAndItsEffectsReportedLost() async throws {
    let events = Events()
    let composition = try composition(app: "timers", placement: "timers deadline 300ms\n", events: events)
    defer { composition.shutdown() }
    let store = Store(initialState: Timers.State()) { composition.compose(Timers()) }
    store.send(.addTimerTapped)
    store.send(.timers(.element(id: 1, action: .startTapped)))
    let stopped = try #require(composition.processes.first?.pids.first)
    kill(stopped, SIGSTOP)

    let stall = await events.first { if case .workerStalled = $0 { true } else { false } }

    #expect(stall == .workerStalled(boundary: "timers", pid: stopped, deadline: .milliseconds(300)))
    #expect(await events.first { if case .effectsLost = $0 { true } else { false } } == .effectsLost(boundary: "timers", count: 1))
    store.send(.timers(.element(id: 1, action: .tick)))
    #expect(store.state.timers[id: 1]?.ticks == 1)
    #expect(events.all.contains { if case .workerRestarted("timers", _, _) = $0 { true } else { false } })
  }
}
