@_spi(Testing) import Bulkhead
@testable import BulkheadDistribution
import Examples
import Foundation
import Synchronization
import Testing
import TransportTestSupport

/// Placed boundaries moved between their workers and the host while the composition runs,
/// with real worker processes: no action lost or run twice, effects that go on where they
/// started, a worker killed during a move.
@MainActor
@Suite(.serialized) struct MoveTests {
  @Test func aCounterMovesToTheHostAndBackAndEveryActionRunsOnce() async throws {
    let events = Events()
    let composition = try composition(app: "two-counters", placement: "counter1\ncounter2\n", events: events)
    defer { composition.shutdown() }
    let pair = StorePair(TwoCounters.State()) { TwoCounters() } placed: { composition.compose(TwoCounters()) }
    for _ in 0..<3 { await pair.send(.counter1(.incrementButtonTapped)) }
    let first = try #require(composition.processes.first?.pids.first)
    let crossed = composition.statistics(of: "counter1")?.actions

    let toHost = try composition.move("counter1", to: .host)
    #expect(composition.residence(of: "counter1") == .host)
    // No effect of its runs, so the worker retires at once.
    #expect(await events.first { $0 == .workerRetired(boundary: "counter1", pid: first) } != nil)
    #expect(composition.processes.first?.pids == [])
    await pair.send(.counter1(.decrementButtonTapped))
    await pair.send(.counter1(.incrementButtonTapped))
    await pair.send(.counter2(.incrementButtonTapped))
    #expect(composition.statistics(of: "counter1")?.actions == crossed, "counter1's actions ran in the host")
    #expect(pair.placed.state == pair.local.state)

    #expect(throws: MoveRefusal.alreadyThere(boundary: "counter1", residence: .host)) {
      try composition.move("counter1", to: .host)
    }
    let toWorker = try composition.move("counter1", to: .worker)
    let second = try #require(composition.processes.first?.pids.first)
    #expect(second != first)
    await pair.send(.counter1(.incrementButtonTapped))
    #expect(composition.statistics(of: "counter1")?.actions == (crossed ?? 0) + 1)
    #expect(pair.placed.state == pair.local.state)
    #expect(pair.placed.state.counter1.count == 4)
    #expect(events.all.contains(.moved(boundary: "counter1", to: .host, duration: toHost)))
    #expect(events.all.contains(.moved(boundary: "counter1", to: .worker, duration: toWorker)))
  }

  @Test func whatCannotMoveIsRefusedByNameAndNothingChanges() throws {
    let composition = try composition(app: "account", placement: "profile\nprofile.avatar\n")
    defer { composition.shutdown() }
    #expect(throws: MoveRefusal.holdsPlacedBoundaries(boundary: "profile", inner: ["profile.avatar"])) {
      try composition.move("profile", to: .host)
    }
    #expect(throws: MoveRefusal.insidePlacedBoundary(boundary: "profile.avatar", outer: "profile")) {
      try composition.move("profile.avatar", to: .host)
    }
    #expect(throws: MoveRefusal.notPlaced(boundary: "avatar", placed: ["profile"])) {
      try composition.move("avatar", to: .host)
    }
    #expect(composition.residence(of: "profile") == .worker)
    #expect(
      "\(MoveRefusal.notPlaced(boundary: "avatar", placed: ["profile"]))"
        == "cannot move avatar: only a boundary the placement puts in workers can move, and this one's are: profile")
  }

  /// Worker → host: the timer's effect goes on in the worker it started in, its ticks are
  /// reduced in the host, and the worker retires once the timer is stopped (in the host).
  @Test func aWorkersEffectsGoOnAfterAMoveToTheHostAndItRetiresWhenTheyEnd() async throws {
    let (composition, pair, events, worker) = try await timerRunningInADrainedWorker(placement: "timers\n")
    defer { composition.shutdown() }
    let crossed = composition.statistics(of: "timers")?.actions
    await pair.advance(by: .seconds(2))
    #expect(pair.placed.state.timers[id: 1]?.ticks == 2)
    #expect(pair.placed.state == pair.local.state)
    #expect(composition.statistics(of: "timers")?.actions == crossed, "the ticks were reduced in the host")
    #expect(!events.all.contains(.workerRetired(boundary: "timers", pid: worker)), "its timer still runs there")
    await pair.send(.timers(.element(id: 1, action: .stopTapped)))
    #expect(await events.first { $0 == .workerRetired(boundary: "timers", pid: worker) } != nil)
    await pair.advance(by: .seconds(1))
    #expect(pair.placed.state == pair.local.state)
    #expect(!events.all.contains { if case .effectsLost = $0 { true } else { false } })
  }

  /// Host → worker: the timer started in the host ticks on there, its ticks reduced in the
  /// new worker, which got the host's copy of the state with its first action.
  @Test func hostEffectsGoOnAfterAMoveToWorkersAndTheirActionsRunThere() async throws {
    let composition = try composition(app: "timers", placement: "timers pool 2\n")
    defer { composition.shutdown() }
    let pair = StorePair(Timers.State()) { Timers() } placed: { composition.compose(Timers()) }
    _ = try composition.move("timers", to: .host)
    for _ in 0..<2 { await pair.send(.addTimerTapped) }
    await pair.send(.timers(.element(id: 1, action: .startTapped)))
    await pair.send(.timers(.element(id: 2, action: .startTapped)))
    _ = try composition.move("timers", to: .worker)
    #expect(composition.processes.first?.pids.count == 2)
    let crossed = composition.statistics(of: "timers")?.actions ?? 0
    await pair.advance(by: .seconds(3))
    #expect(composition.statistics(of: "timers")?.actions == crossed + 6, "the ticks ran in the workers")
    await pair.send(.timers(.element(id: 1, action: .stopTapped)))
    await pair.advance(by: .seconds(1))
    await pair.send(.removeTimerTapped(id: 2))
    await pair.advance(by: .seconds(1))
    #expect(pair.placed.state == pair.local.state)
    #expect(pair.placed.state.totalTicks == 7)
  }

  /// Actions sent while another thread moves the boundary back and forth: each waits for the
  /// move it meets and runs once, wherever the boundary is then.
  @Test func actionsSentDuringMovesRunOnce() async throws {
    let composition = try composition(app: "two-counters", placement: "counter1\ncounter2\n")
    defer { composition.shutdown() }
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    let moves = Atomic(0)
    let stop = Atomic(false)
    let mover = Task.detached {
      var residence = Residence.host
      while !stop.load(ordering: .relaxed) {
        _ = try composition.move("counter1", to: residence)
        residence = residence == .host ? .worker : .host
        moves.add(1, ordering: .relaxed)
      }
    }
    var sent = 0
    while moves.load(ordering: .relaxed) < 20 || sent < 500 {
      store.send(.counter1(.incrementButtonTapped))
      sent += 1
      if sent % 50 == 0 { await Task.yield() }
    }
    stop.store(true, ordering: .relaxed)
    try await mover.value
    #expect(store.state.counter1.count == sent)
  }

  /// Thirty round trips between the host and a worker: every worker but the last has exited,
  /// and the host holds no more descriptors than before.
  @Test func manyMovesLeaveNoProcessOrDescriptorBehind() async throws {
    let events = Events()
    let composition = try composition(app: "two-counters", placement: "counter1\n", events: events)
    defer { composition.shutdown() }
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    store.send(.counter1(.incrementButtonTapped))
    let descriptors = { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0 }
    let before = descriptors()
    for _ in 0..<30 {
      _ = try composition.move("counter1", to: .host)
      store.send(.counter1(.incrementButtonTapped))
      _ = try composition.move("counter1", to: .worker)
      store.send(.counter1(.incrementButtonTapped))
    }
    #expect(store.state.counter1.count == 61)
    let current = composition.processes.first?.pids ?? []
    let started = events.all.compactMap { event -> Int32? in
      if case let .workerStarted(_, pid) = event { pid } else { nil }
    }
    #expect(started.count == 31)
    #expect(allExited(started.filter { !current.contains($0) }))
    #expect(descriptors() <= before + 2, "\(before) descriptors before, \(descriptors()) after")
  }

  /// A drained worker killed (`kill -9`) while its effect runs: the effect is reported lost,
  /// nothing committed is, and the boundary goes on in the host.
  @Test func aDrainedWorkerKilledLosesOnlyItsEffect() async throws {
    let events = Events()
    let composition = try composition(app: "timers", placement: "timers\n", events: events)
    defer { composition.shutdown() }
    let clock = TestClock()
    let executor = EffectExecutor()
    let store = Store(initialState: Timers.State(), reducer: { composition.compose(Timers()) },
      withDependencies: { $0.continuousClock = clock }, effectExecutor: executor)
    store.send(.addTimerTapped)
    let task = store.send(.timers(.element(id: 1, action: .startTapped)))
    await executor.waitUntilSettled()
    let worker = try #require(composition.processes.first?.pids.first)
    _ = try composition.move("timers", to: .host)
    kill(worker, SIGKILL)
    #expect(await events.first { $0 == .effectsLost(boundary: "timers", count: 1) } != nil)
    #expect(await finish(task, within: .seconds(5)))
    store.send(.timers(.element(id: 1, action: .stopTapped)))
    store.send(.addTimerTapped)
    #expect(store.state.timers.count == 2)
    #expect(store.state.timers[id: 1]?.isRunning == false)
    let crossed = composition.statistics(of: "timers")?.actions ?? 0
    _ = try composition.move("timers", to: .worker)
    store.send(.timers(.element(id: 2, action: .stopTapped)))
    #expect(composition.statistics(of: "timers")?.actions == crossed + 1)
  }

  /// A drained worker stopped (`kill -STOP`) while its effect runs is noticed by the liveness
  /// probe, as a worker in its place would be: given up, its effect reported lost.
  @Test func aDrainedWorkerThatStopsIsGivenUp() async throws {
    let (composition, pair, events, worker) = try await timerRunningInADrainedWorker(placement: "timers deadline 200ms\n")
    defer { composition.shutdown() }
    // The stores live on: one that went would cancel the timer, and the worker would retire.
    defer { withExtendedLifetime(pair) {} }
    kill(worker, SIGSTOP)
    // Its effect is reported lost as it is given up, then its stall.
    #expect(await events.first { if case .workerStalled("timers", worker, _) = $0 { true } else { false } } != nil)
    #expect(events.all.contains(.effectsLost(boundary: "timers", count: 1)))
    #expect(allExited([worker]))
  }

  /// Timers placed by `placement`, with timer 1 started in its worker and the boundary then
  /// moved to the host: the worker is kept, drained, for the timer's effect. Returns the
  /// composition (the caller shuts it down), the stores, the events and the worker's pid.
  private func timerRunningInADrainedWorker(
    placement: String
  ) async throws -> (Composition, StorePair<Timers.State, Timers.Action>, Events, Int32) {
    let events = Events()
    let composition = try composition(app: "timers", placement: placement, events: events)
    do {
      let pair = StorePair(Timers.State()) { Timers() } placed: { composition.compose(Timers()) }
      await pair.send(.addTimerTapped)
      await pair.send(.timers(.element(id: 1, action: .startTapped)))
      let worker = try #require(composition.processes.first?.pids.first)
      _ = try composition.move("timers", to: .host)
      return (composition, pair, events, worker)
    } catch {
      composition.shutdown()
      throw error
    }
  }

  /// The worker a move to workers starts is killed as it starts: the action that comes next
  /// waits for its successor, which starts from the host's copy, and runs once.
  @Test func aWorkerKilledDuringAMoveToWorkersIsRestartedAndTheActionRunsOnce() async throws {
    let armed = Atomic(false)
    let events = Events()
    let composition = try Composition(
      root: TwoCounters(), placement: Placement(parsing: "counter1\n", file: "two.placement"),
      command: .executable(workerExecutable, app: "two-counters"),
      onEvent: { event in
        events.append(event)
        if case let .workerStarted(_, pid) = event, armed.exchange(false, ordering: .relaxed) { kill(pid, SIGKILL) }
      })
    defer { composition.shutdown() }
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    _ = try composition.move("counter1", to: .host)
    for _ in 0..<5 { store.send(.counter1(.incrementButtonTapped)) }
    armed.store(true, ordering: .relaxed)
    _ = try composition.move("counter1", to: .worker)
    store.send(.counter1(.incrementButtonTapped))
    #expect(store.state.counter1.count == 6)
    #expect(events.all.contains { if case .workerRestarted(boundary: "counter1", _, _) = $0 { true } else { false } })
    store.send(.counter1(.decrementButtonTapped))
    #expect(store.state.counter1.count == 5)
  }
}

/// One app in two stores, one process and a composition, each with its own test clock and
/// effect executor, sent the same actions and waited for until their effects, here and in
/// workers, have settled.
@MainActor
final class StorePair<State: Equatable & Sendable, Action: Sendable> {
  let local: Store<State, Action>
  let placed: Store<State, Action>
  private let clocks = (TestClock(), TestClock())
  private let executors = (EffectExecutor(), EffectExecutor())

  init<Local: Reducer<State, Action>, Placed: Reducer<State, Action>>(
    _ initialState: State, local: () -> Local, placed: () -> Placed
  ) {
    let local = local()
    let placed = placed()
    self.local = Store(
      initialState: initialState, reducer: { local }, withDependencies: { [clock = clocks.0] in $0.continuousClock = clock },
      effectExecutor: executors.0)
    self.placed = Store(
      initialState: initialState, reducer: { placed },
      withDependencies: { [clock = clocks.1] in $0.continuousClock = clock }, effectExecutor: executors.1)
  }

  /// Sends `action` to both and waits until both have settled.
  func send(_ action: Action) async {
    local.send(action)
    placed.send(action)
    await settle()
  }

  /// Moves both clocks on by `duration`, a second at a time, settling after each.
  func advance(by duration: Duration) async {
    var left = duration
    while left > .zero {
      let step = min(left, .seconds(1))
      await clocks.0.advance(by: step)
      await clocks.1.advance(by: step)
      await settle()
      left -= step
    }
  }

  func settle() async {
    await executors.0.waitUntilSettled()
    await executors.1.waitUntilSettled()
  }
}
