import Bulkhead
import Foundation
import Synchronization
internal import Transport

/// The host's side of one boundary placed in workers: keeps, per worker, the version and
/// encoding of each child state the worker has seen; brings the worker up to date before an
/// action when the host changed the state; applies the worker's patch; restarts dead workers
/// from the host's copy and re-runs the action that was in flight; lets a worker go when the
/// child it served leaves the host's state.
///
/// Its lock guards bookkeeping only: no request, start or wait for a worker happens under it,
/// so a worker that stalls holds only the action waiting for it, never `stop()`.
final class RemoteBoundary: Sendable {
  let path: String
  /// Whether a worker is retired, and a fresh one started, when its child state is removed:
  /// for an `ifLet` or `ifCaseLet` whose child is the only one its workers serve.
  private let retiresWorkers: Bool
  private let launch: @Sendable (_ index: Int) throws -> WorkerLink
  private let policy: RestartPolicy
  private let report: @Sendable (BoundaryEvent) -> Void
  private let instrument: any BoundaryInstrument
  private let pool: Locked<Pool>
  /// How many workers serve the boundary: fixed, so read without the lock.
  private let workers: Int
  private let delay = Atomic<Int>(0)
  /// The coding of the child's state and actions, made at the first action: finding out that
  /// a type is `Codable` is a conformance lookup, too slow to repeat for every action.
  private let codings = Mutex<(any Sendable)?>(nil)

  private struct Codings<State, Action>: Sendable {
    let states: ValueCoding<State>
    let actions: ValueCoding<Action>
  }

  /// What the host knows of one child state in a worker: its version and its value there.
  private struct Synced {
    var version: UInt64
    var state: Any
  }

  /// An effect action's outcome that a worker computed ahead, waiting for the host to run the
  /// action: taken instead of a request if the host's copy of the slot is still its base.
  private struct Offer {
    let link: WorkerLink
    let sequence: UInt64
    let action: [UInt8]
    let outcome: Wire.Outcome
  }

  /// An offer the host took, until its proxy tells the worker.
  private struct Taken: Hashable {
    let link: ObjectIdentifier
    let sequence: UInt64
  }

  private struct Pool {
    var members: [PoolMember]
    var synced: [[[UInt8]: Synced]]
    var offers: [[[UInt8]: Offer]]
    var taken: Set<Taken> = []
    var restarts: [ContinuousClock.Instant] = []
    /// How often the worker at each place was restarted, for the control endpoint.
    var restartCounts: [Int]
    /// Failures since a worker last answered: each waits twice as long before the restart.
    var consecutiveFailures = 0
    var failure: String?
    var isStopped = false
    var statistics = BoundaryStatistics()


    var isOpen: Bool { failure == nil && !isStopped }
  }

  /// What the host does for one action, decided under the lock.
  private enum Step {
    case take(Wire.Outcome)
    case ask(Wire.Request, hostPatch: StatePatch?)
  }

  init(
    path: String, workers: Int, retiresWorkers: Bool, policy: RestartPolicy,
    report: @escaping @Sendable (BoundaryEvent) -> Void, instrument: any BoundaryInstrument,
    launch: @escaping @Sendable (_ index: Int) throws -> WorkerLink
  ) {
    self.workers = workers
    self.path = path
    self.retiresWorkers = retiresWorkers
    self.launch = launch
    self.policy = policy
    self.report = report
    self.instrument = instrument
    self.pool = Locked(
      Pool(
        members: Array(repeating: .empty, count: workers), synced: Array(repeating: [:], count: workers),
        offers: Array(repeating: [:], count: workers), restartCounts: Array(repeating: 0, count: workers)))
  }

  /// What has crossed this boundary so far.
  var statistics: BoundaryStatistics { pool.withLock { $0.statistics } }

  /// The pids of the running workers, in pool order.
  var pids: [Int32] { pool.withLock { $0.members.compactMap { $0.link?.pid } } }

  /// Starts every worker of the pool, one after another on this thread: a worker that cannot
  /// start throws, and the composition does not start.
  func start() throws {
    for index in 0..<workers {
      let link = try launch(index)
      let installed = pool.withLock { pool in
        guard pool.isOpen, case .empty = pool.members[index] else { return false }
        pool.members[index] = .running(link)
        return true
      }
      if !installed { link.close() }
    }
  }

  /// Ends every worker's connections and takes no more actions. The composition's roster sees
  /// the processes out, within a bound.
  func stop() {
    let links = pool.withLock { pool in
      pool.isStopped = true
      defer { pool.members = pool.members.map { _ in .empty } }
      return pool.members.compactMap(\.link)
    }
    for link in links { link.close() }
  }

  /// Asks every running worker that has been idle for `idle` whether it still answers; one
  /// that stalls is killed, its effects reported lost, and the next action restarts it.
  func probeIdleWorkers(idleFor idle: Duration) {
    let links = pool.withLock { pool in pool.isOpen ? pool.members.compactMap(\.link) : [] }
    for link in links {
      do {
        try link.probe(ifIdleFor: idle)
      } catch let stall as WorkerStalled {
        pool.withLock { $0.statistics.stalls += 1 }
        report(.workerStalled(boundary: path, pid: stall.pid, deadline: stall.deadline))
      } catch {
        // A worker that died or misbehaved is restarted by the next action, which says why.
      }
    }
  }

  /// Kills the worker at `index` with SIGKILL, as a crash would: for fault injection.
  func kill(worker index: Int) {
    _ = send(signal: SIGKILL, toWorker: index)
  }

  /// Kills the worker at `index` with SIGKILL and starts its successor at once, on a thread of
  /// its own, as a supervisor does with a crash it caused (`./compose.sh kill`), rather than
  /// at the next action, which may never come to an idle worker. One kill is one restart,
  /// however many actions find the worker dead and however many kills come at once.
  /// Returns the pid of the worker killed; nil when none runs at `index` (one is starting).
  func killAndRestart(worker index: Int) -> Int32? {
    guard let link = pool.withLock({ $0.members[index].link }) else { return nil }
    // Given up before it dies, so that the actions that find it dead wait for its successor.
    giveUp(index, .running(link), reason: "it was killed on request (SIGKILL)")
    return link.pid
  }

  /// Sends `number` to the worker at `index`, if one runs there: for fault injection. False
  /// when none does.
  func send(signal number: Int32, toWorker index: Int) -> Bool {
    guard let link = pool.withLock({ $0.members[index].link }) else { return false }
    link.process.send(signal: number)
    return true
  }

  /// Why the boundary failed for good, if it did: its actions are dropped from then on.
  var failureReason: String? { pool.withLock { $0.failure } }

  /// Each place of the pool, in order: the pid of its running worker (nil between a death
  /// and the restart) and how often it was restarted.
  var places: [(pid: Int32?, restarts: Int)] {
    pool.withLock { pool in zip(pool.members, pool.restartCounts).map { ($0.link?.pid, $1) } }
  }

  /// How long the host holds every reply of this boundary before taking it, in milliseconds
  /// (0: not at all): `slow`, a slow worker or link as the host's reducer sees it.
  var replyDelay: Int {
    get { delay.load(ordering: .relaxed) }
    set { delay.store(newValue, ordering: .relaxed) }
  }

  /// The child state of `element`, or the boundary's only child when `element` is nil, left
  /// the host's state. Its worker forgets its copy, or is retired and replaced by a fresh one.
  /// The child's effects are cancelled by the host in the same pass.
  func remove(element: (any Sendable)?) {
    guard let (slot, index) = try? place(of: element) else { return }
    let forgetting = pool.withLock { pool -> WorkerLink? in
      guard pool.synced[index].removeValue(forKey: slot) != nil else { return nil }
      if retiresWorkers {
        retire(&pool, index)
        pool.statistics.workersRetired += 1
        return nil
      }
      pool.statistics.slotsDropped += 1
      return pool.members[index].link
    }
    // A worker that is gone or fails this has nothing left to forget: the next action finds
    // it gone and starts a successor, empty.
    _ = try? forgetting?.request(.drop(slot: slot))
  }

  /// Runs `action` on `state` in the worker that serves it, and returns the child's effects
  /// as the host runs them.
  func reduce<Child: Reducer>(
    _: Child.Type, into state: inout Child.State, action: Child.Action, element: (any Sendable)?
  ) -> Effect<Child.Action> {
    guard let (states, actions) = coding(Child.State.self, Child.Action.self) else {
      report(.actionFailed(boundary: path, reason: "\(Child.State.self) or \(Child.Action.self) is not Codable"))
      return .none
    }
    let place: (slot: [UInt8], index: Int)
    let actionBytes: [UInt8]
    do {
      place = try self.place(of: element)
      actionBytes = try actions.encode(action)
    } catch {
      report(.actionFailed(boundary: path, reason: "\(error)"))
      return .none
    }
    let name = instrument.wantsActionNames ? Self.name(of: action) : nil
    return exchange(
      slot: place.slot, index: place.index, action: actionBytes, named: name, state: &state, states: states,
      actions: actions)
  }

  /// How the child's states and actions cross, made once; nil when either is not `Codable`.
  private func coding<State, Action>(
    _: State.Type, _: Action.Type
  ) -> (ValueCoding<State>, ValueCoding<Action>)? {
    if let made = codings.withLock({ $0 }) as? Codings<State, Action> { return (made.states, made.actions) }
    guard let states = ValueCoding(State.self), let actions = ValueCoding(Action.self) else { return nil }
    codings.withLock { $0 = Codings(states: states, actions: actions) }
    return (states, actions)
  }

  /// Runs one action in its worker until a worker answers it, restarting workers that fail on
  /// the way. The state changes only once a whole answer (patch and effects) has decoded, so
  /// an action is applied once or not at all.
  private func exchange<State, Action: Sendable>(
    slot: [UInt8], index: Int, action: [UInt8], named name: String?, state: inout State,
    states: ValueCoding<State>, actions: ValueCoding<Action>
  ) -> Effect<Action> {
    while true {
      guard let current = acquire(index) else { return .none }
      do {
        var staleAnswers = 0
        while true {
          let reply = try answer(
            to: action, named: name, slot: slot, index: index, link: current, state: state, states: states)
          switch reply {
          case let .ran(outcome):
            let changed = try outcome.patch.map { try states.apply($0, state) } ?? state
            let outcomes = outcomes(link: current, index: index, slot: slot)
            let effect = try Effect(outcome.effect, decode: actions.decode) { run in
              current.effects.proxy(run: run, decode: actions.decode, outcomes: outcomes)
            }
            state = changed
            pool.withLock { pool in
              pool.consecutiveFailures = 0
              guard pool.members[index].link === current else { return }
              pool.synced[index][slot] = Synced(version: outcome.version, state: changed)
            }
            return effect
          case .stale:
            // Once more with the whole state; a worker stale even then breaks the protocol.
            staleAnswers += 1
            guard staleAnswers == 1 else {
              throw DistributionError.protocolViolation("worker \(current.pid) answered \"stale\" to a whole state")
            }
            pool.withLock { pool in
              if pool.members[index].link === current { pool.synced[index][slot] = nil }
            }
          case let .failed(reason):
            report(.actionFailed(boundary: path, reason: reason))
            return .none
          case .dropped, .pong:
            throw DistributionError.protocolViolation("worker \(current.pid) answered a run with \"\(reply)\"")
          }
        }
      } catch {
        guard restart(index, abandoning: current, after: error) else { return .none }
      }
    }
  }

  /// The worker's answer to `action`: an outcome it offered ahead, if the host's copy of the
  /// slot is still the one the worker computed on and so are the host's dependencies, or else
  /// a request and its reply. A request carries the host's dependencies when they changed
  /// since the worker last heard of them.
  private func answer<State>(
    to action: [UInt8], named name: String?, slot: [UInt8], index: Int, link: WorkerLink, state: State,
    states: ValueCoding<State>
  ) throws -> Wire.Reply {
    let dependencies = link.effects.dependencies.header(for: DependencyValues.current)
    let step = try pool.withLock { pool -> Step in
      let synced = pool.synced[index][slot]
      let patch = try states.patch(synced?.state as? State, state)
      let offer = pool.offers[index].removeValue(forKey: slot)
      if let offer, offer.link === link, offer.action == action, patch == nil, dependencies == nil, let synced,
        offer.outcome.baseVersion == synced.version
      {
        pool.taken.insert(Taken(link: ObjectIdentifier(link), sequence: offer.sequence))
        pool.statistics.recordPrecomputed(workerPatch: offer.outcome.patch)
        return .take(offer.outcome)
      }
      let request = Wire.Request.run(
        slot: slot, baseVersion: synced?.version ?? Wire.emptyVersion, patch: patch, action: action,
        dependencies: dependencies)
      return .ask(request, hostPatch: patch)
    }
    switch step {
    case let .take(outcome):
      return .ran(outcome)
    case let .ask(request, hostPatch):
      let start = MonotonicInstant.now
      let exchange = try link.request(request)
      // `slow` holds the reply here, after it came: every worker of the boundary, restarted
      // ones too, is slowed without being told, and the worker's deadline is never hit (a
      // stall is what `stop` studies).
      let held = replyDelay
      if held > 0 { Thread.sleep(forTimeInterval: Double(held) / 1_000) }
      instrument.remoteActionAnswered(
        RemoteActionTrip(
          boundary: path, action: name, worker: index, pid: link.pid, start: start, end: .now,
          workerNanoseconds: exchange.handlingNanoseconds, bytesSent: exchange.sent, bytesReceived: exchange.received,
          hostPatchBytes: hostPatch?.byteCount, workerPatchBytes: exchange.reply.patch?.byteCount))
      pool.withLock {
        $0.statistics.record(
          sent: exchange.sent, received: exchange.received, hostPatch: hostPatch, workerPatch: exchange.reply.patch)
      }
      // Here, on the thread of the host's reducer: a test store's warning handler hears them.
      for warning in exchange.warnings { reportWorkerWarning(warning, boundary: path) }
      return exchange.reply
    }
  }

  /// Where the proxies of one slot's effects offer the outcomes their worker computed ahead,
  /// and say when the host processed each action.
  private func outcomes(link: WorkerLink, index: Int, slot: [UInt8]) -> HostEffects.Outcomes {
    HostEffects.Outcomes(
      offer: { [pool] sequence, action, outcome in
        pool.withLock { pool in
          guard pool.members[index].link === link else { return }
          pool.offers[index][slot] = Offer(link: link, sequence: sequence, action: action, outcome: outcome)
        }
      },
      settle: { [pool] sequence in
        pool.withLock { pool in
          if pool.offers[index][slot]?.sequence == sequence, pool.offers[index][slot]?.link === link {
            pool.offers[index][slot] = nil
          }
          return pool.taken.remove(Taken(link: ObjectIdentifier(link), sequence: sequence)) != nil
        }
      },
      processed: { [instrument, path] arrived, bytes, took, action in
        instrument.effectActionProcessed(
          EffectActionTrip(
            boundary: path, action: instrument.wantsActionNames ? Self.name(of: action()) : nil, worker: index,
            pid: link.pid, arrived: arrived, processed: .now, bytes: bytes, tookOutcome: took))
      })
  }

  /// `action` as an instrument that wants names sees it: its description, cut short.
  private static func name(of action: Any) -> String {
    let description = String(describing: action)
    return description.count > 80 ? description.prefix(79) + "…" : description
  }

  /// The running worker at `index`, waited for while it starts (outside the lock); nil once
  /// the boundary has failed or stopped.
  private func acquire(_ index: Int) -> WorkerLink? {
    while true {
      switch pool.withLock({ pool in pool.isOpen ? pool.members[index] : .empty }) {
      case .empty:
        return nil
      case let .running(link):
        return link
      case let .starting(start):
        // Then the place holds the worker it started, or the successor of a start that failed.
        start.wait()
      }
    }
  }

  /// Makes `link` the worker at `index` if that place still waits for `start`, counting a
  /// restart if it is one; a boundary that stopped or failed meanwhile lets it go.
  private func install(_ link: WorkerLink, at index: Int, replacing start: WorkerStart, restarted: Bool) -> Bool {
    let installed = pool.withLock { pool in
      guard pool.isOpen, pool.members[index].isSame(as: .starting(start)) else { return false }
      pool.members[index] = .running(link)
      if restarted { pool.restartCounts[index] += 1 }
      return true
    }
    if !installed { link.close() }
    return installed
  }

  /// Lets the worker at `index` go without waiting for it to exit, and starts its successor
  /// in the background.
  private func retire(_ pool: inout Pool, _ index: Int) {
    guard let link = pool.members[index].link else { return }
    report(.workerRetired(boundary: path, pid: link.pid))
    link.retire()
    forget(&pool, index, link)
    startSuccessor(&pool, index, after: .zero, restarting: nil)
  }

  /// Forgets what the host knew of the worker at `index`, about to go: its copies of child
  /// states, and its outcomes offered or taken.
  private func forget(_ pool: inout Pool, _ index: Int, _ link: WorkerLink?) {
    pool.synced[index] = [:]
    pool.offers[index] = [:]
    if let link { pool.taken = pool.taken.filter { $0.link != ObjectIdentifier(link) } }
  }

  /// Gives up the worker at `index` after a request to it failed: it died, stalled or
  /// misbehaved. False when the boundary has failed under its restart policy, or stopped.
  private func restart(_ index: Int, abandoning link: WorkerLink, after error: any Error) -> Bool {
    guard let stall = error as? WorkerStalled else { return giveUp(index, .running(link), reason: "\(error)") }
    report(.workerStalled(boundary: path, pid: stall.pid, deadline: stall.deadline))
    return giveUp(index, .running(link), reason: "it stalled (no answer within \(stall.deadline))", stalled: true)
  }

  /// What giving up a worker came to.
  private enum Verdict {
    /// Its successor is starting: this caller's, or that of another who gave it up first.
    case restarting
    /// One restart too many: the boundary failed, and lets the rest of its pool go.
    case failed(String, idle: [WorkerLink])
    /// The boundary had failed or stopped already: nothing more to do or report.
    case closed
  }

  /// Gives up `failed`, the worker or the start at `index`, and starts its successor from the
  /// host's copy in the background, unless another caller gave it up first: one failure is
  /// one restart against the policy, however many actions, kills or starts noticed it.
  /// Failures in a row back off before the successor starts. False when the boundary has
  /// failed under its restart policy, or stopped.
  @discardableResult
  private func giveUp(_ index: Int, _ failed: PoolMember, reason: String, stalled: Bool = false) -> Bool {
    let verdict = pool.withLock { pool -> Verdict in
      guard pool.isOpen else { return .closed }
      guard pool.members[index].isSame(as: failed) else { return .restarting }
      pool.members[index] = .empty
      forget(&pool, index, failed.link)
      pool.statistics.failures += 1
      if stalled { pool.statistics.stalls += 1 }
      guard policy.allowsRestart(at: .now, after: &pool.restarts) else {
        let failure = "\(reason); restarted \(policy.maximumRestarts) times within \(policy.period)"
        pool.failure = failure
        // A failed boundary takes no more actions: the rest of its pool has nothing to do.
        defer { pool.members = pool.members.map { _ in .empty } }
        return .failed(failure, idle: pool.members.compactMap(\.link))
      }
      pool.consecutiveFailures += 1
      startSuccessor(&pool, index, after: Self.backoff(after: pool.consecutiveFailures), restarting: reason)
      return .restarting
    }
    failed.link?.abandon(because: reason)
    switch verdict {
    case .restarting:
      return true
    case let .failed(failure, idle):
      for link in idle { link.letGo(because: "its boundary failed") }
      report(.boundaryFailed(boundary: path, reason: failure))
      return false
    case .closed:
      return false
    }
  }

  /// Puts a start at `index` and starts a worker there on a thread of its own, after
  /// `backoff`: the successor of one that failed (`reason`, which its restart event gives) or
  /// retired (nil). Whoever needs the worker meanwhile waits for the start (`acquire`), so
  /// only one worker starts at a place at a time; a start that fails is given up like a
  /// worker that died.
  private func startSuccessor(_ pool: inout Pool, _ index: Int, after backoff: Duration, restarting reason: String?) {
    let start = WorkerStart()
    pool.members[index] = .starting(start)
    DetachedThread.run { [self] in
      defer { start.finish() }
      if backoff > .zero { Thread.sleep(forTimeInterval: Double(backoff.wholeMilliseconds) / 1_000) }
      // A boundary that stopped during the backoff starts nothing more.
      guard self.pool.withLock({ $0.isOpen }) else { return }
      do {
        let link = try launch(index)
        guard install(link, at: index, replacing: start, restarted: reason != nil) else { return }
        if let reason { report(.workerRestarted(boundary: path, pid: link.pid, reason: reason)) }
      } catch {
        let failed = reason == nil ? "a worker could not start" : "a restart failed"
        giveUp(index, .starting(start), reason: "\(failed): \(error)")
      }
    }
  }

  /// No wait before the first restart in a row; then 25 ms, doubling up to a second, so that
  /// a worker that fails at once is not started in a tight loop.
  static func backoff(after failures: Int) -> Duration {
    guard failures > 1 else { return .zero }
    return min(.milliseconds(25 << min(failures - 2, 6)), .seconds(1))
  }

  /// Where the child of `element` lives: its slot in a worker (empty for the boundary's only
  /// child) and the worker's index in the pool.
  private func place(of element: (any Sendable)?) throws -> (slot: [UInt8], index: Int) {
    guard let element else { return ([], 0) }
    let slot = try Self.encodeElement(element)
    return (slot, PoolSpread.index(of: element, encoded: slot, workers: workers))
  }

  private static func encodeElement(_ element: any Sendable) throws -> [UInt8] {
    guard let encodable = element as? any Encodable else {
      throw DistributionError.notCodable(boundary: "forEach", type: "\(type(of: element))")
    }
    return try BinaryEncoder().encode(encodable)
  }
}
