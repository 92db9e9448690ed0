import Bulkhead
@testable import BulkheadDistribution
@testable import BulkheadTools
import Examples
import Foundation
import Testing
import Transport

/// The composition's control endpoint, reached over its socket as another process would.
@MainActor
@Suite(.serialized) struct ControlTests {
  @Test func theControlEndpointListsTheWorkersAndRefusesWorkersThatAreNotThere() async throws {
    let composition = try composition(app: "timers", placement: "timers pool 2\n")
    defer { composition.shutdown() }
    let path = try composition.startControl()
    #expect(try composition.startControl() == path)
    let system = SocketActorSystem(connection: FramedConnection(try UnixSocket.connect(to: path)))
    defer { system.close() }
    let control = try CompositionControl.resolve(id: CompositionControl.id, using: system)

    let placed = try await control.processes()
    #expect(placed.map(\.boundary) == ["timers"])
    #expect(placed.flatMap(\.pids) == composition.processes.flatMap(\.pids).map(Int.init))
    #expect(placed.first?.pids.count == 2)
    await #expect(throws: DistributionError.unknownBoundary("counter", known: ["timers"])) {
      try await control.kill(boundary: "counter", index: 0)
    }
    await #expect(throws: ControlError.noSuchWorker(boundary: "timers", index: 2, workers: 2)) {
      try await control.kill(boundary: "timers", index: 2)
    }
  }

  @Test func aWorkerKilledThroughTheControlEndpointIsRestartedAtOnce() async throws {
    let events = Events()
    let composition = try composition(app: "two-counters", placement: "counter1\n", events: events)
    defer { composition.shutdown() }
    let (system, control) = try reach(composition)
    defer { system.close() }
    let killed = try #require(composition.processes.first?.pids.first)

    try await control.kill(boundary: "counter1", index: 0)
    #expect(await events.first { $0 == .workerExited(boundary: "counter1", pid: killed) } != nil)
    let restarted = await events.first {
      if case .workerRestarted("counter1", _, .killedOnRequest) = $0 { true } else { false }
    }
    guard case let .workerRestarted(_, pid, _)? = restarted else {
      Issue.record("no restart after the kill")
      return
    }
    let worker = try await control.snapshot().boundaries.first?.workers.first
    #expect(worker == Wire.WorkerPlace(pid: Int(pid), restarts: 1) && pid != killed)

    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    store.send(.counter1(.incrementButtonTapped))
    #expect(store.state.counter1.count == 1)
  }

  /// An `ifLet` boundary drawing from the warm pool: `ps` shows its place vacant, and the
  /// pool's idle workers under `(warm)`, until a presentation claims one.
  @Test func theSnapshotShowsAVacantPlaceAndTheWarmPool() async throws {
    let composition = try composition(app: "detail", placement: "detail\n")
    defer { composition.shutdown() }
    #expect(composition.waitForWarmPool())
    let (system, control) = try reach(composition)
    defer { system.close() }
    let idle = try await control.snapshot()
    #expect(idle.boundaries.first?.workers == [Wire.WorkerPlace(pid: nil, restarts: 0, vacant: true)])
    #expect(idle.warmPIDs == composition.warmPIDs.map(Int.init) && idle.warmPIDs.count == 2)
    let lines = ProcessTable(app: "detail", run: RunFile(pid: getpid(), controlSocket: "", placement: ""), snapshot: idle)
      .lines
    #expect(lines.contains { $0.hasPrefix("detail ") && $0.contains(" vacant ") })
    #expect(lines.filter { $0.hasPrefix("(warm) ") }.count == 2)

    let store = Store(initialState: DetailPresenter.State()) { composition.compose(DetailPresenter()) }
    store.send(.showDetailTapped)
    store.send(.detail(.descriptionChanged("presented")))
    let presented = try await control.snapshot()
    let place = try #require(presented.boundaries.first?.workers.first)
    #expect(!place.vacant && place.pid.map { idle.warmPIDs.contains($0) } == true)
  }

  /// Issue 22: `kill` of a worker that had died before the host noticed said "sent SIGKILL".
  /// A signal tells whether it reached a running worker; a kill restarts the place either way.
  @Test func aKillOfAWorkerThatHadAlreadyExitedSaysSo() async throws {
    let events = Events()
    let composition = try composition(app: "two-counters", placement: "counter1\n", events: events)
    defer { composition.shutdown() }
    let (system, control) = try reach(composition)
    defer { system.close() }
    let died = try #require(composition.processes.first?.pids.first)

    #expect(Glibc.kill(died, SIGKILL) == 0)
    #expect(await events.first { $0 == .workerExited(boundary: "counter1", pid: died) } != nil)
    #expect(try await control.send(.kill, boundary: "counter1", index: 0) == .workerHadExited)
    #expect(await events.first { if case .workerRestarted("counter1", _, _) = $0 { true } else { false } } != nil)
    #expect(try await control.send(.stop, boundary: "counter1", index: 0) == .delivered)
    #expect(try await control.send(.cont, boundary: "counter1", index: 0) == .delivered)
  }

  @Test func aSignalToABoundaryThatFailedIsRefusedAndSaysWhy() async throws {
    let events = Events()
    let composition = try composition(
      app: "two-counters", placement: "counter1\n", events: events,
      restartPolicy: RestartPolicy(maximumRestarts: 0, within: .seconds(60)))
    defer { composition.shutdown() }
    let (system, control) = try reach(composition)
    defer { system.close() }
    try await control.kill(boundary: "counter1", index: 0)
    #expect(await events.first { if case .boundaryFailed("counter1", _) = $0 { true } else { false } } != nil)
    await #expect {
      try await control.kill(boundary: "counter1", index: 0)
    } throws: { error in
      guard case .boundaryFailed(boundary: "counter1", _)? = error as? ControlError else { return false }
      return true
    }
  }

  @Test func stopAndContSuspendAndResumeTheWorker() async throws {
    let composition = try composition(app: "two-counters", placement: "counter1 deadline 30s\n")
    defer { composition.shutdown() }
    let (system, control) = try reach(composition)
    defer { system.close() }
    let pid = try #require(composition.processes.first?.pids.first)

    #expect(try await control.send(.stop, boundary: "counter1", index: 0) == .delivered)
    #expect(try waitForState(of: pid) { $0 == "T" })
    #expect(try await control.send(.cont, boundary: "counter1", index: 0) == .delivered)
    #expect(try waitForState(of: pid) { $0 != "T" })
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    store.send(.counter1(.incrementButtonTapped))
    #expect(store.state.counter1.count == 1 && composition.processes.first?.pids == [pid])
  }

  @Test func slowHoldsEveryReplyOfTheBoundaryUntilTurnedOff() async throws {
    let composition = try composition(app: "two-counters", placement: "counter1\n")
    defer { composition.shutdown() }
    let (system, control) = try reach(composition)
    defer { system.close() }
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }

    try await control.slow(boundary: "counter1", milliseconds: 150)
    #expect(try await control.snapshot().boundaries.first?.replyDelayMilliseconds == 150)
    // A lower bound only: the reply cannot come sooner than it is held, however busy the machine.
    let held = ContinuousClock().measure { store.send(.counter1(.incrementButtonTapped)) }
    #expect(held >= .milliseconds(150) && store.state.counter1.count == 1)
    try await control.slow(boundary: "counter1", milliseconds: 0)
    #expect(try await control.snapshot().boundaries.first?.replyDelayMilliseconds == 0)
    await #expect(throws: DistributionError.unknownBoundary("counter2", known: ["counter1"])) {
      try await control.slow(boundary: "counter2", milliseconds: 10)
    }
    await #expect(throws: ControlError.delayOutOfRange(milliseconds: -1, limit: CompositionControl.longestReplyDelay)) {
      try await control.slow(boundary: "counter1", milliseconds: -1)
    }
  }

  /// `slow` holds replies in the worker, not on the host's reducer thread, and the host's
  /// wait for a reply allows for the hold: a reply held past the deadline is not a stall.
  @Test func aReplyHeldPastTheDeadlineIsNotAStall() async throws {
    let events = Events()
    let composition = try composition(app: "two-counters", placement: "counter1 deadline 300ms\n", events: events)
    defer { composition.shutdown() }
    let (system, control) = try reach(composition)
    defer { system.close() }
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    let pid = try #require(composition.processes.first?.pids.first)

    try await control.slow(boundary: "counter1", milliseconds: 600)
    let held = ContinuousClock().measure { store.send(.counter1(.incrementButtonTapped)) }
    #expect(held >= .milliseconds(600) && store.state.counter1.count == 1)
    #expect(!events.all.contains { if case .workerStalled = $0 { true } else { false } }, "\(events.all)")
    // Back to the deadline alone once the delay is off: the same worker answers at once.
    try await control.slow(boundary: "counter1", milliseconds: 0)
    store.send(.counter1(.incrementButtonTapped))
    #expect(store.state.counter1.count == 2 && composition.processes.first?.pids == [pid])
  }

  @Test func theSnapshotCarriesWhatCrossedEachBoundary() async throws {
    let composition = try composition(app: "two-counters", placement: "counter1\ncounter2\n")
    defer { composition.shutdown() }
    let (system, control) = try reach(composition)
    defer { system.close() }
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    store.send(.counter2(.incrementButtonTapped))
    store.send(.counter2(.incrementButtonTapped))

    let snapshot = try await control.snapshot()
    #expect(snapshot.hostPID == Int(getpid()))
    #expect(snapshot.boundaries.map(\.boundary) == ["counter1", "counter2"])
    #expect(snapshot.boundaries.map(\.actions) == [0, 2])
    let crossed = try #require(composition.statistics(of: "counter2"))
    #expect(snapshot.boundaries[1].bytesSent == crossed.bytesSent && crossed.bytesSent > 0)
    #expect(snapshot.boundaries[1].workers.map(\.pid) == composition.processes[1].pids.map(Int.init))
  }

  @Test func theControlSocketGoesWithTheComposition() throws {
    let composition = try composition(app: "two-counters", placement: "counter1\n")
    let path = try composition.startControl()
    #expect(FileManager.default.fileExists(atPath: path))
    composition.shutdown()
    #expect(!FileManager.default.fileExists(atPath: path))
    #expect(throws: TransportError.self) { try UnixSocket.connect(to: path) }
  }
}

/// The state letter /proc gives `pid` once `matches` holds of it: the signal is the kernel's
/// to deliver, so /proc is polled, up to a deadline.
private func waitForState(of pid: Int32, until matches: (Character) -> Bool) throws -> Bool {
  let deadline = ContinuousClock.now + .seconds(10)
  while ContinuousClock.now < deadline {
    if let state = ProcessState(of: pid)?.state, matches(state) { return true }
    Thread.sleep(forTimeInterval: 0.02)
  }
  return false
}

/// A connection to `composition`'s control endpoint, as another process makes one.
private func reach(_ composition: Composition) throws -> (SocketActorSystem, CompositionControl) {
  let system = SocketActorSystem(connection: FramedConnection(try UnixSocket.connect(to: try composition.startControl())))
  return (system, try CompositionControl.resolve(id: CompositionControl.id, using: system))
}
