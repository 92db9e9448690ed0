import Bulkhead
import BulkheadDistribution
import Dispatch
import ExampleApps
import Examples
import Foundation
import Synchronization
import Testing
import Transport
import TransportTestSupport

/// Bad bytes never win: every worker runs behind `chaos-relay`, which damages frames both
/// ways with a seeded generator, and the host must neither crash nor hang, must report the
/// damage as events, and must leave no process and no socket behind.
///
/// `BULKHEAD_CHAOS_FRAMES` sets how many frames each test relays (default 4,000; 1,000,000 for
/// a soak by hand); `BULKHEAD_CHAOS_LOG=1` echoes every relay line, mutations included, to
/// standard error as it comes, so that a crash or hang shows which frame did it;
/// `BULKHEAD_CHAOS_DEADLINE` is the seconds a send may take before it counts as hung.
@MainActor
@Suite(.serialized) struct ChaosRelayTests {
  @Test func twoCountersSurviveDamagedFrames() async throws {
    try await run(app: "two-counters", placement: "counter1\ncounter2\n", seed: 1_000, rate: 0.02) { composition in
      Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    } next: { _, generator in
      let counter: Counter.Action = Bool.random(using: &generator) ? .incrementButtonTapped : .decrementButtonTapped
      return Bool.random(using: &generator) ? .counter1(counter) : .counter2(counter)
    }
  }

  @Test func effectStreamsSurviveDamagedFrames() async throws {
    try await run(app: "payload", placement: "store\n", seed: 2_000, rate: 0.02) { composition in
      Store(initialState: Payload.State()) { composition.compose(Payload()) }
    } next: { _, generator in
      switch Int.random(in: 0..<6, using: &generator) {
      case 0: .store(.bump)
      case 1: .parentBumpsOnStream(Bool.random(using: &generator))
      default: .store(.stream(count: Int.random(in: 1...4, using: &generator)))
      }
    }
  }

  @Test func timersInAPoolSurviveDamagedFrames() async throws {
    try await run(app: "timers", placement: "timers pool 2\n", seed: 3_000, rate: 0.02) { composition in
      Store(initialState: Timers.State()) { composition.compose(Timers()) }
    } next: { Timers.randomAction($0, &$1) }
  }

  /// The soak that found the hang: flips everywhere, effect messages included.
  @Test func effectStreamsSurviveFlippedBits() async throws {
    try await run(app: "payload", placement: "store\n", seed: 2_000, rate: 0.02, kinds: "flip") { composition in
      Store(initialState: Payload.State()) { composition.compose(Payload()) }
    } next: { _, generator in
      Bool.random(using: &generator) ? .store(.bump) : .store(.stream(count: Int.random(in: 1...4, using: &generator)))
    }
  }

  /// The relay itself changes nothing: at rate 0 the states match one process exactly.
  @Test func aRelayThatDamagesNothingChangesNothing() async throws {
    let local = Store(initialState: TwoCounters.State()) { TwoCounters() }
    let remote = try await run(
      app: "two-counters", placement: "counter1\ncounter2\n", seed: 4_000, rate: 0, frames: 1_000,
      expectsDamage: false
    ) { composition in
      Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    } next: { _, generator in
      let counter: Counter.Action = Bool.random(using: &generator) ? .incrementButtonTapped : .decrementButtonTapped
      let action: TwoCounters.Action = Bool.random(using: &generator) ? .counter1(counter) : .counter2(counter)
      local.send(action)
      return action
    }
    #expect(remote.state == local.state)
  }

  /// A lost frame leaves the host waiting for a reply that never comes: until the deadline.
  @Test func droppedFramesAreNoticed() async throws {
    try await run(
      app: "two-counters", placement: "counter1 deadline 300ms\ncounter2 deadline 300ms\n", seed: 5_000, rate: 0.02,
      kinds: "drop", frames: min(Self.frameTarget, 1_000)
    ) { composition in
      Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    } next: { _, generator in
      Bool.random(using: &generator) ? .counter1(.incrementButtonTapped) : .counter2(.incrementButtonTapped)
    }
  }

  /// An effect action dropped on its way to the host leaves a gap in the worker's numbering,
  /// found at the next action or when the body ends: the worker is restarted and its effects
  /// reported lost, instead of the action vanishing unreported.
  @Test func aDroppedEffectActionIsNoticed() async throws {
    try await run(
      app: "payload", placement: "store\n", seed: 2, rate: 0.5, kinds: "drop", lanes: "effects-to-host",
      frames: 40, strandsEffects: false
    ) { composition in
      Store(initialState: Payload.State()) { composition.compose(Payload()) }
    } next: { _, _ in
      .store(.stream(count: 3))
    }
  }

  /// A worker that stops answering (its lanes freeze while the connections stay open) must
  /// be killed and restarted like a crashed one.
  @Test func aStalledWorkerIsRestarted() async throws {
    try await run(
      app: "payload", placement: "store deadline 300ms\n", seed: 6_000, rate: 0.01, kinds: "stall",
      frames: min(Self.frameTarget, 1_000)
    ) { composition in
      Store(initialState: Payload.State()) { composition.compose(Payload()) }
    } next: { _, generator in
      Bool.random(using: &generator) ? .store(.bump) : .store(.stream(count: 2))
    }
  }

  /// Reduced from `effectStreamsSurviveDamagedFrames` (its hangs all followed a flip on the
  /// effects connection): one flipped bit in an effect message that still decodes strands
  /// the host's proxy, and the one `send` never finishes.
  /// - seed 6, effects-to-worker: the first frame, `start(run: 1)` (kind 34, bytes [tag, 1]),
  ///   has bit 1.6 flipped: the worker is told to start run 65, which it does not have; the
  ///   host's proxy for run 1 waits for actions that never come.
  /// - seed 9, effects-to-host: the worker's first `action(run: 1, sequence: 1, …)` has bit 2.2
  ///   flipped, sequence 1 becomes 5: the host answers `processed(sequence: 5)`, the worker's
  ///   body waits for `processed(sequence: 1)` for ever, and never sends `finished`.
  /// Only `frames: 1`: one action, every frame of the lane flipped. Either side now takes a
  /// message about a run or action that does not exist as the end of the worker. The relay
  /// recomputes checksums, or the flips would end the connection before any decoder.
  @Test(arguments: zip(["effects-to-worker", "effects-to-host"], [6, 9] as [UInt64]))
  func aFlippedEffectMessageEndsOrRestartsTheEffect(lane: String, seed: UInt64) async throws {
    try await run(
      app: "payload", placement: "store\n", seed: seed, rate: 1, kinds: "flip", lanes: lane, untouched: 0,
      recomputesChecksums: true, frames: 1
    ) { composition in
      Store(initialState: Payload.State()) { composition.compose(Payload()) }
    } next: { _, _ in
      .store(.stream(count: 1))
    }
  }

  /// Issue 22, item 11, for real: under live frame mutation with checksums recomputed, one
  /// effect was neither finished nor reported lost after its worker's restart. Three timers
  /// start (the host's clock never moves, so they run and never tick). The relay flips bit
  /// 119.1 of control frame 3 to the host, the reply to the third start (frame 0 is the
  /// greeting): the last byte of its effect, `.cancellable(…, .run(3))` before the worker's
  /// handling time (the cancel id before it names the private `CancelID` without addresses,
  /// `Timer.(private).CancelID`), so that run 3 reads 1, a body the worker runs already.
  /// Every effect must end with the worker, reported lost.
  @Test func aReplyNamingARunningBodyEndsEveryEffect() async throws {
    let relayed = try RelayedComposition(
      app: "timers", placement: "timers\n", relay: relayExecutable, seed: 0,
      options: [
        "--rate", "1", "--kinds", "flip", "--bits", "119.1", "--lanes", "control-to-host", "--after", "3",
        "--recompute-checksums",
      ])
    let clock = TestClock()
    let store = Store(initialState: Timers.State()) { relayed.composition.compose(Timers()) } withDependencies: {
      $0.continuousClock = clock
    }
    var started: [StoreTask] = []
    for id in 1...3 {
      store.send(.addTimerTapped)
      started.append(store.send(.timers(.element(id: id, action: .startTapped))))
    }
    for task in started {
      #expect(await finish(task, within: .seconds(5)), "an effect neither finished nor was reported lost")
    }
    let lost = relayed.events.all.reduce(0) { total, event in
      guard case let .effectsLost(_, count) = event else { return total }
      return total + count
    }
    #expect(lost == 3)
    // The next action for the boundary restarts the worker, saying why it was given up: the
    // flip hit the run number, not another byte of the reply.
    store.send(.timers(.element(id: 1, action: .stopTapped)))
    let restart = await relayed.events.first { event in
      if case .workerRestarted = event { true } else { false }
    }
    #expect("\(restart.map(String.init(describing:)) ?? "no restart")".contains("effect body run 1"))
    relayed.shutDownLeavingNothing()
  }

  /// The damage of issue 22 (2% of frames, checksums recomputed so that it reaches the
  /// decoders) on timers in a pool, which start, stop, tick on a test clock and are removed:
  /// whatever the damage did, once the workers are killed every effect has ended, or been
  /// reported lost.
  @Test func everyEffectEndsOrIsLostUnderDamageThatDecodes() async throws {
    let seed = Self.seedOverride ?? 7_000
    let relayed = try RelayedComposition(
      app: "timers", placement: "timers pool 2\n", relay: relayExecutable, seed: seed,
      options: ["--rate", "0.02", "--after", "1", "--recompute-checksums"])
    let clock = TestClock()
    let store = Store(initialState: Timers.State()) { relayed.composition.compose(Timers()) } withDependencies: {
      $0.continuousClock = clock
    }
    var generator = SeededGenerator(seed: seed)
    var started: [StoreTask] = []
    let watchdog = Watchdog(deadline: Self.sendDeadline)
    for step in 0..<2_000 {
      let ids = store.state.timers.ids
      let action: Timers.Action
      switch (Int.random(in: 0..<8, using: &generator), ids.randomElement(using: &generator)) {
      case (4, _):
        await clock.advance(by: .seconds(1))
        continue
      case (0...1, _), (_, nil): action = .addTimerTapped
      case let (2, id?): action = .removeTimerTapped(id: id)
      case let (3, id?): action = .timers(.element(id: id, action: .stopTapped))
      case let (_, id?): action = .timers(.element(id: id, action: .startTapped))
      }
      watchdog.arm("seed \(seed), step \(step): \(action)")
      started.append(store.send(action))
      watchdog.disarm()
    }
    watchdog.stop()
    #expect(watchdog.hangs.isEmpty, "sends that hung: \(watchdog.hangs)")
    for index in 0..<2 { relayed.composition.killWorker(of: "timers", index: index) }
    var running = 0
    for task in started where await !finish(task, within: .seconds(2)) { running += 1 }
    #expect(running == 0, "effects neither finished nor reported lost once their workers were killed")
    #expect(relayed.relays.mutations > 0, "the relays damaged nothing")
    relayed.shutDownLeavingNothing()
  }

  // MARK: - Running a composition behind the relay

  /// Frames each test relays: `BULKHEAD_CHAOS_FRAMES`, or a count CI runs quickly.
  private static var frameTarget: Int {
    ProcessInfo.processInfo.environment["BULKHEAD_CHAOS_FRAMES"].flatMap { Int($0) } ?? 4_000
  }

  /// `BULKHEAD_CHAOS_SEED`, which replaces every test's base seed: to look for failures.
  private static var seedOverride: UInt64? {
    ProcessInfo.processInfo.environment["BULKHEAD_CHAOS_SEED"].flatMap { UInt64($0) }
  }

  /// How long one `send` (and its effects) may take before the test calls it a hang:
  /// `BULKHEAD_CHAOS_DEADLINE` seconds, 60 by default. A hang waits for ever; a loaded machine
  /// only late: with two busy loops beside the whole suite, other `@MainActor` tests that
  /// start workers held the main actor up to 25 s between two steps.
  private static var sendDeadline: Duration {
    .seconds(ProcessInfo.processInfo.environment["BULKHEAD_CHAOS_DEADLINE"].flatMap { Int($0) } ?? 60)
  }

  /// How long a step's effects may run before the test cancels them.
  private static let effectDeadline = Duration.seconds(3)

  /// Runs `app` with `placement`, every worker behind a relay that damages frames at `rate`
  /// (with checksums to match when `recomputesChecksums`, so that the damage reaches the
  /// decoders), sending actions from `next` until the relays report `frames` frames (or, should they
  /// stop reporting, one action per frame wanted); then shuts down and checks that nothing
  /// is left; with `strandsEffects` false, also that no effect waited until the test cancelled
  /// it. Returns the store for further checks.
  @discardableResult
  private func run<State: Sendable, Action: Sendable>(
    app: String, placement: String, seed: UInt64, rate: Double, kinds: String? = nil,
    lanes: String? = nil, untouched: Int = 1, recomputesChecksums: Bool = false, frames: Int = frameTarget,
    expectsDamage: Bool = true, strandsEffects: Bool = true, store makeStore: (Composition) -> Store<State, Action>,
    next: (State, inout SeededGenerator) -> Action
  ) async throws -> Store<State, Action> {
    let started = ContinuousClock.now
    let seed = Self.seedOverride ?? seed
    let relayed = try RelayedComposition(
      app: app, placement: placement, relay: relayExecutable, seed: seed,
      options: ["--rate", "\(rate)", "--after", "\(untouched)"]
        + (kinds.map { ["--kinds", $0] } ?? []) + (lanes.map { ["--lanes", $0] } ?? [])
        + (recomputesChecksums ? ["--recompute-checksums"] : []))
    let (events, relays) = (relayed.events, relayed.relays)
    let store = makeStore(relayed.composition)
    let watchdog = Watchdog(deadline: Self.sendDeadline)
    var generator = SeededGenerator(seed: seed)
    var sent = 0
    var stranded = 0
    while relays.framesRelayed < frames && sent < frames {
      let action = next(store.state, &generator)
      watchdog.arm("app \(app), seed \(seed), rate \(rate), step \(sent): \(action)")
      // A damaged message can leave an effect waiting for ever on a worker that still
      // answers, as a worker's own bug could; the host is not held by it: cancelling the
      // effect, as a user would, must end it at once.
      if await !finish(store.send(action), within: Self.effectDeadline) { stranded += 1 }
      watchdog.disarm()
      sent += 1
    }
    watchdog.stop()
    let relayCount = relayed.shutDownLeavingNothing()
    #expect(watchdog.hangs.isEmpty, "sends that hung: \(watchdog.hangs)")
    if !strandsEffects { #expect(stranded == 0, "effects that waited until cancelled: \(stranded)") }
    let damage = events.all.filter {
      switch $0 {
      case .workerRestarted, .boundaryFailed, .actionFailed, .effectsLost: true
      default: false
      }
    }
    if expectsDamage {
      #expect(relays.mutations > 0, "the relays damaged nothing")
      #expect(!damage.isEmpty, "\(relays.mutations) frames damaged, and the host reported nothing")
    } else {
      #expect(relays.mutations == 0)
      #expect(damage.isEmpty, "undamaged frames, yet: \(damage)")
    }
    // Under the summary lines: frames relayed by relays that exited cleanly (a relay the
    // host kills with SIGKILL cannot say).
    print(
      "chaos \(app) seed \(seed) rate \(rate): \(sent) actions, \(relays.framesRelayed) frames relayed, "
        + "\(relays.mutations) mutated, \(relayCount) relays, \(damage.count) damage events, "
        + "\(stranded) effects cancelled after \(Self.effectDeadline), "
        + "\(ContinuousClock.now - started)")
    return store
  }

  /// `chaos-relay`, built beside the tests and `child-worker`.
  private var relayExecutable: URL {
    workerExecutable.deletingLastPathComponent().appendingPathComponent("chaos-relay")
  }
}

/// A composition of an example app whose every worker runs behind `chaos-relay`, with the
/// events it reports and what its relays say.
@MainActor
struct RelayedComposition {
  let composition: Composition
  let events = Events()
  let relays = RelayOutput(echo: ProcessInfo.processInfo.environment["BULKHEAD_CHAOS_LOG"] == "1")
  /// Every relay, seen as it started.
  let started = SeenProcesses()

  /// Starts `app` with `placement`, its relays given `options`. Each launch gets the next
  /// seed from `seed`, so that restarts do not repeat the same damage, and a run with the same
  /// base seed launches the same relays.
  init(app: String, placement: String, relay: URL, seed: UInt64, options: [String]) throws {
    guard let example = ExampleApp.named(app) else { throw DistributionError.unknownBoundary(app, known: []) }
    let launches = Mutex<UInt64>(0)
    let command = WorkerCommand(executable: relay) { boundary in
      let launch = launches.withLock { count in
        defer { count += 1 }
        return count
      }
      return ["--seed", "\(seed &+ launch)"] + options
        + ["--verbose", "--", workerExecutable.path, "--bulkhead-worker", app, boundary]
    }
    composition = try Composition(
      root: example.root(), placement: Placement(parsing: placement, file: "\(app).placement"), command: command,
      restartPolicy: RestartPolicy(maximumRestarts: 10_000, within: .seconds(1)),
      onEvent: { [events, started] event in
        if let pid = Self.relay(startedBy: event) { started.note(pid) }
        events.append(event)
      },
      onOutput: relays.append)
  }

  /// Shuts the composition down and checks that no relay, worker or directory is left;
  /// returns how many relays it started.
  @discardableResult
  func shutDownLeavingNothing() -> Int {
    let socketDirectory = composition.socketDirectory
    composition.shutdown()
    let relayPIDs = events.all.compactMap(Self.relay(startedBy:))
    #expect(started.all.allSatisfy { $0.waitForExit(milliseconds: 5_000) }, "a relay outlived shutdown")
    #expect(
      relays.workers.compactMap(\.process).allSatisfy { $0.waitForExit(milliseconds: 5_000) },
      "a worker behind a relay outlived shutdown")
    #expect(childRelays().isEmpty, "relays still children of the host: \(childRelays())")
    for directory in relays.workers.map(\.directory) + [socketDirectory].compactMap({ $0 }) {
      #expect(!FileManager.default.fileExists(atPath: directory), "\(directory) was left behind")
    }
    return relayPIDs.count
  }

  /// The pid of the relay `event` says started, if it says one did.
  private nonisolated static func relay(startedBy event: BoundaryEvent) -> Int32? {
    switch event {
    case let .workerStarted(_, pid), let .workerRestarted(_, pid, _): pid
    default: nil
    }
  }
}

/// The pids of this process's children that run `chaos-relay`, exited or not. Other suites'
/// workers, which run in parallel with this one, are not counted.
func childRelays() -> [Int32] {
  let me = getpid()
  let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
  return entries.compactMap(Int32.init).filter { pid in
    guard let status = processStatus(of: pid) else { return false }
    return status.name == "chaos-relay" && status.fields.count > 1 && Int32(status.fields[1]) == me
  }
}

/// What the relays said on standard error: their workers and directories, and their
/// summaries' frame and mutation counts.
final class RelayOutput: Sendable {
  struct Worker: Sendable {
    /// Seen as the relay named it; nil if it had exited by then.
    let process: SeenProcess?
    let directory: String
  }

  private struct State {
    /// Each relay's latest counts, by its seed: progress lines and the summary are totals
    /// so far, and a relay the host kills prints only the former.
    var counts: [Int: (frames: Int, mutations: Int)] = [:]
    var workers: [Worker] = []
  }

  private let state = Mutex(State())
  private let echo: Bool

  init(echo: Bool) { self.echo = echo }

  var framesRelayed: Int { state.withLock { $0.counts.values.reduce(0) { $0 + $1.frames } } }
  var mutations: Int { state.withLock { $0.counts.values.reduce(0) { $0 + $1.mutations } } }
  var workers: [Worker] { state.withLock { $0.workers } }

  /// Reads `relaying worker PID, socket directory PATH`, and `seed S: … relayed N frames (…),
  /// mutated M` from progress lines and summaries.
  @Sendable func append(_ line: WorkerOutput) {
    if echo { FileHandle.standardError.write(Data("[\(line.worker)] \(line.text)\n".utf8)) }
    let words = line.text.split(separator: " ")
    func number(after word: Substring) -> Int? {
      guard let index = words.firstIndex(of: word), index + 1 < words.count else { return nil }
      return Int(words[index + 1].trimmingCharacters(in: .punctuationCharacters))
    }
    if let pid = number(after: "worker"), let directory = words.last, line.text.contains("socket directory") {
      let worker = Worker(process: SeenProcess(pid: Int32(pid)), directory: String(directory))
      state.withLock { $0.workers.append(worker) }
    }
    if let seed = number(after: "seed"), let frames = number(after: "relayed"), let mutated = number(after: "mutated") {
      state.withLock { state in
        let known = state.counts[seed] ?? (0, 0)
        state.counts[seed] = (max(known.frames, frames), max(known.mutations, mutated))
      }
    }
  }
}

/// Turns a hung `send` into a test failure instead of a hung test: armed before each step and
/// disarmed after, it waits on the disarm with a deadline. Past it, it records the hang and
/// kills this process's relays, whose end unblocks a host waiting on a worker; should even that
/// not help, it says so and ends the test process, which would otherwise never finish.
final class Watchdog: Sendable {
  private let armed = DispatchSemaphore(value: 0)
  private let disarmed = DispatchSemaphore(value: 0)
  private let state = Mutex<(step: String, isStopped: Bool, hangs: [String])>(("", false, []))

  init(deadline: Duration) {
    let seconds = Double(deadline.components.seconds)
    DetachedThread.run { [self] in
      while true {
        armed.wait()
        let (step, isStopped) = state.withLock { ($0.step, $0.isStopped) }
        if isStopped { return }
        guard disarmed.wait(timeout: .now() + seconds) == .timedOut else { continue }
        state.withLock { $0.hangs.append(step) }
        FileHandle.standardError.write(Data("ChaosRelayTests: hung for \(deadline): \(step); killing the relays\n".utf8))
        for pid in childRelays() { kill(pid, SIGKILL) }
        guard disarmed.wait(timeout: .now() + seconds) == .timedOut else { continue }
        FileHandle.standardError.write(Data("ChaosRelayTests: still hung after killing the relays: \(step); giving up\n".utf8))
        exit(75)
      }
    }
  }

  /// The steps that hung.
  var hangs: [String] { state.withLock { $0.hangs } }

  func arm(_ step: String) {
    state.withLock { $0.step = step }
    armed.signal()
  }

  func disarm() { disarmed.signal() }

  /// Ends the watchdog's thread; call after the last `disarm()`.
  func stop() {
    state.withLock { $0.isStopped = true }
    armed.signal()
  }
}
