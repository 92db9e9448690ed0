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
  private let launch: @Sendable (_ index: Int) throws -> WorkerLink
  private let report: @Sendable (BoundaryEvent) -> Void
  private let instrument: any BoundaryInstrument
  /// The boundary's bookkeeping, behind the one lock: places, synced versions, offers, restarts.
  private let machine: Locked<BoundaryMachine<WorkerLink>>
  /// How many workers serve the boundary: fixed, so read without the lock.
  private let workers: Int
  private let delay = Atomic<Int>(0)
  private let moves = Mutex<(to: Residence, took: Duration)?>(nil)
  /// The coding of the child's state and actions, made at the first action: finding out that
  /// a type is `Codable` is a conformance lookup, too slow to repeat for every action. Kept
  /// with the types it was made for, which each action compares with its own: a cast back
  /// from an existential looked up the generic type's metadata, and copied ten closures.
  private let knownCodings = Mutex<KnownCodings?>(nil)

  /// Codings made for the state and action types named by their identifiers.
  private typealias KnownCodings = (state: ObjectIdentifier, action: ObjectIdentifier, made: any AnyObject & Sendable)

  /// How the child's states and actions cross, in one object that an action passes on with
  /// one retain.
  private final class Codings<State, Action>: Sendable {
    let states: ValueCoding<State>
    let actions: ValueCoding<Action>

    init(states: ValueCoding<State>, actions: ValueCoding<Action>) {
      self.states = states
      self.actions = actions
    }
  }

  init(
    path: String, workers: Int, retiresWorkers: Bool, drawsFromWarmPool: Bool = false, policy: RestartPolicy,
    report: @escaping @Sendable (BoundaryEvent) -> Void, instrument: any BoundaryInstrument,
    launch: @escaping @Sendable (_ index: Int) throws -> WorkerLink
  ) {
    self.workers = workers
    self.path = path
    self.launch = launch
    self.report = report
    self.instrument = instrument
    machine = Locked(
      BoundaryMachine(
        path: path, workers: workers, retiresWorkers: retiresWorkers, drawsFromWarmPool: drawsFromWarmPool,
        policy: policy))
  }

  /// What has crossed this boundary so far.
  var statistics: BoundaryStatistics { machine.withLock { $0.statistics } }

  /// The pids of the running workers, in pool order.
  var pids: [Int32] { machine.withLock { $0.members.compactMap { $0.link?.pid } } }

  /// Starts every worker of the pool, one after another on this thread: a worker that cannot
  /// start throws, and the composition does not start. A place that draws from the warm pool
  /// stays vacant until its child is presented.
  func start() throws {
    for index in 0..<workers {
      guard case .empty = machine.withLock({ $0.members[index] }) else { continue }
      let link = try launch(index)
      perform(machine.withLock { $0.started(link, at: index) })
    }
  }

  /// Ends every worker's connections and takes no more actions. The composition's roster sees
  /// the processes out, within a bound.
  func stop() {
    perform(machine.withLock { $0.stop() })
  }

  /// Asks every running worker that has been idle for `idle` whether it still answers; one
  /// that stalls is killed, its effects reported lost, and the next action restarts it.
  func probeIdleWorkers(idleFor idle: Duration) {
    // Drained workers too: one that stopped would keep its effects, and itself, for ever.
    let links = machine.withLock { $0.isOpen ? $0.members.compactMap(\.link) + $0.draining : [] }
    for link in links {
      do {
        try link.probe(ifIdleFor: idle)
      } catch let failure as WorkerLink.GivenUp {
        guard case let .stalled(deadline) = failure.reason else { continue }
        machine.withLock { $0.statistics.stalls += 1 }
        report(.workerStalled(boundary: path, pid: failure.pid, deadline: deadline))
      } catch {
        // A worker that died or misbehaved is restarted by the next action, which says why.
      }
    }
  }

  /// Where the child runs now.
  var residence: Residence { machine.withLock { $0.residence } }

  /// Where the last move took the boundary and how long it took; nil before any.
  var lastMove: (to: Residence, took: Duration)? { moves.withLock { $0 } }

  /// Moves the boundary to `destination` and returns how long it took, until the next action
  /// could run there: to the host at once (the workers are then let go, each retiring once
  /// the effects it runs have ended); to workers once every worker of the pool has started
  /// from nothing, to be given the host's copy of the state with its first action. Actions
  /// that come meanwhile wait, then run once.
  ///
  /// - Throws: `MoveRefusal` when the boundary is there already, has failed (before the
  ///   move, or because its workers could not start), or stopped.
  func move(to destination: Residence) throws(MoveRefusal) -> Duration {
    let began = ContinuousClock.now
    let commands = machine.withLock { machine in
      Result { () throws(MoveRefusal) in
        try destination == .host ? machine.moveToHost() : machine.moveToWorkers()
      }
    }
    let took: Duration
    switch destination {
    case .host:
      // The next action runs in the host from here on; letting the workers go is tidying up.
      took = began.duration(to: .now)
      perform(try commands.get())
    case .worker:
      perform(try commands.get())
      // A vacant place is claimed from the warm pool by the next action that needs it.
      for index in 0..<workers where !machine.withLock({ $0.members[index].isVacant }) { _ = acquire(index) }
      if let failure { throw .failed(boundary: path, reason: failure) }
      took = began.duration(to: .now)
    }
    moves.withLock { $0 = (destination, took) }
    report(.moved(boundary: path, to: destination, duration: took))
    return took
  }

  /// Kills the worker at `index` with SIGKILL, as a crash would: for fault injection.
  func kill(worker index: Int) {
    _ = send(signal: SIGKILL, toWorker: index)
  }

  /// Kills the worker at `index` with SIGKILL and starts its successor at once, on a thread of
  /// its own, as a supervisor does with a crash it caused (`./compose.sh kill`), rather than
  /// at the next action, which may never come to an idle worker. One kill is one restart,
  /// however many actions find the worker dead and however many kills come at once.
  /// Returns the pid of the worker killed, and whether the kill reached it running or found it
  /// exited before the host noticed (its successor starts either way); nil when none runs at
  /// `index` (one is starting).
  func killAndRestart(worker index: Int) -> (pid: Int32, delivery: Wire.SignalDelivery)? {
    guard let link = machine.withLock({ $0.members[index].link }) else { return nil }
    let wasRunning = link.process.isRunning
    // Given up before it dies, so that the actions that find it dead wait for its successor.
    giveUp(.running(link), at: index, for: .killedOnRequest)
    return (link.pid, wasRunning ? .delivered : .workerHadExited)
  }

  /// Sends `number` to the worker at `index`, if one runs there: for fault injection. Nil
  /// when none does (one is starting).
  func send(signal number: Int32, toWorker index: Int) -> Wire.SignalDelivery? {
    guard let link = machine.withLock({ $0.members[index].link }) else { return nil }
    return link.process.send(signal: number) ? .delivered : .workerHadExited
  }

  /// Why the boundary failed for good, if it did: its actions are dropped from then on.
  var failure: BoundaryFailure? { machine.withLock { $0.failure } }

  /// Each place of the pool, in order: the pid of its running worker (nil between a death
  /// and the restart) and how often it was restarted.
  var places: [(pid: Int32?, restarts: Int, vacant: Bool)] {
    machine.withLock { pool in zip(pool.members, pool.restartCounts).map { ($0.link?.pid, $1, $0.isVacant) } }
  }

  /// How long every worker of this boundary, restarted ones too, holds its reply to an action
  /// before sending it, in milliseconds (0: not at all): `slow`, a slow worker or link as the
  /// host's reducer sees it. Each request says it, and the host's wait for the reply allows
  /// for it: the deadline is never hit because of it (a stall is what `stop` studies).
  var replyDelay: Int {
    get { delay.load(ordering: .relaxed) }
    set { delay.store(newValue, ordering: .relaxed) }
  }

  /// The children whose element ids begin with `elements` left the host's state: all of the
  /// boundary's when `elements` is empty, one stack screen's when it is `[3]`. Their workers
  /// forget their copies, or are retired and replaced by fresh ones. The children's effects
  /// are cancelled by the host in the same pass.
  func remove(under elements: [any Sendable]) {
    guard let prefix = try? Self.slot(of: elements) else { return }
    perform(machine.withLock { $0.removed(under: prefix) })
  }

  /// Runs `action` on `state`, a store of `lineage`'s, in the worker that serves the child of
  /// `elements`, and returns the child's effects as the host runs them; nil when the
  /// boundary was moved to the host, which runs the child itself.
  func reduce<Child: Reducer>(
    _: Child.Type, into state: inout Child.State, action: Child.Action, elements: [any Sendable], lineage: UInt64
  ) -> Effect<Child.Action>? {
    guard machine.withLock({ $0.enter() }) else { return nil }
    defer { perform(machine.withLock { $0.leave() }) }
    guard let codings = coding(Child.State.self, Child.Action.self) else {
      report(.actionFailed(boundary: path, reason: "\(Child.State.self) or \(Child.Action.self) is not Codable"))
      return Effect.none
    }
    let place: (slot: [UInt8], index: Int)
    let actionBytes: [UInt8]
    do {
      place = try self.place(of: elements)
      actionBytes = try codings.actions.encode(action)
    } catch {
      report(.actionFailed(boundary: path, reason: "\(error)"))
      return Effect.none
    }
    let name = instrument.wantsActionNames ? codings.actions.name(action) : nil
    return exchange(
      slot: place.slot, index: place.index, lineage: lineage, action: actionBytes, named: name, state: &state,
      codings: codings)
  }

  /// An action of the child ran in the host, which the boundary was moved to, and took
  /// `duration`: for the timings, where it counts with the round trips over the last seconds.
  func ranInHost(took duration: Duration) {
    instrument.actionRanInHost(boundary: path, nanoseconds: UInt64(max(0, duration / .nanoseconds(1))), at: .now)
  }

  /// How the child's states and actions cross, made once; nil when either is not `Codable`.
  private func coding<State, Action>(_: State.Type, _: Action.Type) -> Codings<State, Action>? {
    if let known = knownCodings.withLock({ $0 }), known.state == ObjectIdentifier(State.self),
      known.action == ObjectIdentifier(Action.self)
    {
      // Made for these very types, as just compared: the downcast cannot be wrong.
      return unsafeDowncast(known.made, to: Codings<State, Action>.self)
    }
    guard let states = ValueCoding(State.self), let actions = ValueCoding(Action.self) else { return nil }
    let made = Codings(states: states, actions: actions)
    knownCodings.withLock { $0 = (ObjectIdentifier(State.self), ObjectIdentifier(Action.self), made) }
    return made
  }

  /// Runs one action in its worker until a worker answers it, restarting workers that fail on
  /// the way. The state changes only once a whole answer (patch and effects) has decoded, so
  /// an action is applied once or not at all.
  private func exchange<State, Action: Sendable>(
    slot: [UInt8], index: Int, lineage: UInt64, action: [UInt8], named name: String?, state: inout State,
    codings: Codings<State, Action>
  ) -> Effect<Action>? {
    while true {
      let current: WorkerLink
      switch acquire(index) {
      case let .worker(link): current = link
      // Moved to the host while this action waited for a worker: it runs there, once.
      case .host: return nil
      case .nothing: return Effect.none
      }
      do {
        while true {
          let (reply, base) = try answer(
            to: action, named: name, slot: slot, index: index, link: current, lineage: lineage, state: state,
            states: codings.states)
          switch reply {
          case let .ran(outcome):
            let changed = try outcome.patch.map { try codings.states.apply($0, state) } ?? state
            let effect = try effect(of: outcome, link: current, index: index, slot: slot, actions: codings.actions)
            state = changed
            machine.withLock {
              $0.ran(slot: slot, at: index, link: current, lineage: lineage, version: outcome.version, state: changed)
            }
            return effect
          case .stale:
            // Once more with the whole state; a worker stale even then breaks the protocol.
            if let violation = machine.withLock({ $0.stale(slot: slot, at: index, link: current, base: base) }) {
              throw WorkerLink.GivenUp(pid: current.pid, reason: .brokeProtocol(violation))
            }
          case let .failed(reason):
            report(.actionFailed(boundary: path, reason: reason))
            return Effect.none
          case .dropped, .pong, .assigned:
            throw DistributionError.protocolViolation("worker \(current.pid) answered a run with \"\(reply)\"")
          }
        }
      } catch {
        guard restart(index, abandoning: current, after: error) else { return Effect.none }
      }
    }
  }

  /// The worker's answer to `action`: an outcome it offered ahead, if the host's copy of the
  /// slot is still the one the worker computed on and so are the host's dependencies, or else
  /// a request and its reply; with the version the answer was based on. A request carries the
  /// host's dependencies when they changed since the worker last heard of them.
  private func answer<State>(
    to action: [UInt8], named name: String?, slot: [UInt8], index: Int, link: WorkerLink, lineage: UInt64,
    state: State, states: ValueCoding<State>
  ) throws -> (reply: Wire.Reply, base: UInt64) {
    let dependencies = link.effects.dependencies.header(for: DependencyValues.current)
    let step = try machine.withLock { machine in
      try machine.step(
        slot: slot, at: index, link: link, lineage: lineage, action: action, dependencies: dependencies,
        holdReply: UInt64(clamping: replyDelay)
      ) { copy in
        try states.patch(copy as? State, state)
      }
    }
    switch step {
    case let .take(outcome):
      return (.ran(outcome), outcome.baseVersion)
    case let .ask(request, hostPatch):
      let start = MonotonicInstant.now
      // The one place the host's reducer blocks: see `WorkerLink.request`.
      let exchange = try link.request(request)
      instrument.remoteActionAnswered(
        RemoteActionTrip(
          boundary: path, action: name, worker: index, pid: link.pid, start: start, end: .now,
          workerNanoseconds: exchange.handlingNanoseconds, bytesSent: exchange.sent, bytesReceived: exchange.received,
          hostPatchBytes: hostPatch?.byteCount, workerPatchBytes: exchange.reply.patch?.byteCount))
      machine.withLock {
        $0.statistics.record(
          sent: exchange.sent, received: exchange.received, hostPatch: hostPatch, workerPatch: exchange.reply.patch)
      }
      // Here, on the thread of the host's reducer: a test store's warning handler hears them.
      for warning in exchange.warnings { reportWorkerWarning(warning, boundary: path) }
      guard case let .run(_, base, _, _, _, _) = request else { return (exchange.reply, Wire.emptyVersion) }
      return (exchange.reply, base)
    }
  }

  /// The host's side of the effect the worker returned with `outcome`: its proxies and the
  /// actions it sends at once. None, the common answer, is made without a look at the
  /// navigation path or the proxies' bookkeeping.
  private func effect<Action: Sendable>(
    of outcome: Wire.Outcome, link: WorkerLink, index: Int, slot: [UInt8], actions: ValueCoding<Action>
  ) throws -> Effect<Action> {
    if case .none = outcome.effect { return .none }
    let outcomes = outcomes(link: link, index: index, slot: slot, actions: actions)
    return try Effect(outcome.effect, decode: actions.decode) { run in
      link.effects.proxy(run: run, decode: actions.decode, outcomes: outcomes)
    }
  }

  /// Where the proxies of one slot's effects offer the outcomes their worker computed ahead,
  /// and say when the host processed each action.
  private func outcomes<Action>(
    link: WorkerLink, index: Int, slot: [UInt8], actions: ValueCoding<Action>
  ) -> HostEffects.Outcomes {
    HostEffects.Outcomes(
      offer: { [machine] sequence, action, outcome in
        machine.withLock {
          $0.offered(slot: slot, at: index, link: link, sequence: sequence, action: action, outcome: outcome)
        }
      },
      settle: { [machine] sequence in
        machine.withLock { $0.processed(slot: slot, at: index, link: link, sequence: sequence) }
      },
      processed: { [instrument, path, machine, actions] arrived, bytes, took, patchBytes, action in
        machine.withLock { $0.statistics.recordEffectAction(bytes: bytes) }
        instrument.effectActionProcessed(
          EffectActionTrip(
            boundary: path, action: instrument.wantsActionNames ? Self.name(of: action(), by: actions) : nil,
            worker: index,
            pid: link.pid, arrived: arrived, processed: .now, bytes: bytes, tookOutcome: took, patchBytes: patchBytes))
      })
  }

  /// `action`, which is of the child's action type, as an instrument that wants names sees it.
  private static func name<Action>(of action: Any, by actions: ValueCoding<Action>) -> String {
    (action as? Action).map(actions.name) ?? String(describing: action)
  }

  /// What an action finds at place `index`, once any start there has ended.
  private enum Found {
    case worker(WorkerLink)
    /// The boundary was moved to the host: the host runs the action.
    case host
    /// The boundary failed or stopped: the action changes nothing.
    case nothing
  }

  /// The running worker at `index`, waited for while it starts (outside the lock); the host,
  /// read under the same lock, once the boundary was moved there.
  private func acquire(_ index: Int) -> Found {
    while true {
      switch machine.withLock({ $0.residence == .host ? nil : $0.member(at: index) }) {
      case nil:
        return .host
      case .empty:
        return .nothing
      case let .running(link):
        return .worker(link)
      case let .starting(start):
        // Then the place holds the worker it started, or the successor of a start that failed.
        start.wait()
      case .vacant:
        // The child was presented: this action waits for a worker claimed from the warm pool.
        guard let start = machine.withLock({ $0.claim(at: index) }) else { continue }
        startWorker(at: index, for: start, restarting: nil)
      }
    }
  }

  /// Gives up the worker at `index` after a request to it failed: it died, stalled or
  /// misbehaved. False when the boundary has failed under its restart policy, or stopped.
  private func restart(_ index: Int, abandoning link: WorkerLink, after error: any Error) -> Bool {
    let reason = Self.reason(error)
    switch reason {
    case let .stalled(deadline): report(.workerStalled(boundary: path, pid: link.pid, deadline: deadline))
    case let .exceededLimit(limit): report(.limitExceeded(boundary: path, pid: link.pid, limit: limit))
    default: break
    }
    return giveUp(.running(link), at: index, for: reason)
  }

  /// Why a request that failed with `error` gives its worker up: the link says why it gave up;
  /// an answer that broke the protocol or that the host could not use says what it was.
  private static func reason(_ error: any Error) -> RestartReason {
    (error as? WorkerLink.GivenUp)?.reason ?? .brokeProtocol(ProtocolViolation(error))
  }

  /// Gives up `failed`, the worker or the start at `index`, and starts its successor: see
  /// `BoundaryMachine.gaveUp`. False when the boundary has failed under its restart policy,
  /// or stopped.
  @discardableResult
  private func giveUp(_ failed: PoolMember<WorkerLink>, at index: Int, for reason: RestartReason) -> Bool {
    let (commands, restarting) = machine.withLock { $0.gaveUp(failed, at: index, for: reason, now: .now) }
    perform(commands)
    return restarting
  }

  /// Does what the machine decided, outside its lock, in order.
  private func perform(_ commands: [BoundaryMachine<WorkerLink>.Command]) {
    for command in commands {
      switch command {
      case let .close(link): link.close()
      case let .abandon(link, reason): link.abandon(because: reason)
      case let .retire(link): link.retire()
      case let .letGo(link, reason): link.letGo(because: reason)
      case let .launch(index, start, delay, reason): launch(at: index, for: start, after: delay, restarting: reason)
      case let .drain(link):
        link.effects.whenEveryProxyEnded { [weak self] in
          self.map { $0.perform($0.machine.withLock { $0.drained(link) }) }
        }
      case let .drop(slot, link):
        // A worker that is gone or fails this has nothing left to forget: the next action
        // finds it gone and starts a successor, empty.
        _ = try? link.request(.drop(slot: slot))
      case let .report(event): report(event)
      }
    }
  }

  /// Starts a worker at `index` for `start` on a thread of its own once `delay` has passed,
  /// timed by a dispatch timer, not a sleeping thread: the successor of one given up for
  /// `reason`, or of one that retired (nil). Whoever needs the worker meanwhile waits for the
  /// start (`acquire`), so only one worker starts at a place at a time; a start that fails
  /// is given up like a worker that died.
  private func launch(at index: Int, for start: WorkerStart, after delay: Duration, restarting reason: RestartReason?) {
    let starting: @Sendable () -> Void = { [self] in
      DetachedThread.run { [self] in startWorker(at: index, for: start, restarting: reason) }
    }
    guard delay > .zero else { return starting() }
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(delay.wholeMilliseconds)), execute: starting)
  }

  /// Starts a worker at `index` for `start` on this thread and ends the start: see
  /// `launch(at:for:after:restarting:)`.
  private func startWorker(at index: Int, for start: WorkerStart, restarting reason: RestartReason?) {
    defer { start.finish() }
    // A boundary that stopped during the back-off starts nothing more.
    guard machine.withLock({ $0.isOpen }) else { return }
    do {
      let link = try launch(index)
      perform(machine.withLock { $0.started(link, at: index, for: start, restarting: reason) })
    } catch {
      giveUp(.starting(start), at: index, for: .startFailed("\(error)"))
    }
  }

  /// Where the child of `elements` lives: its slot in a worker (empty for the boundary's only
  /// child) and the worker's index in the pool, picked by the innermost element's id, so that
  /// the screens of a stack spread over `path.detail`'s pool as over `path`'s.
  private func place(of elements: [any Sendable]) throws -> (slot: [UInt8], index: Int) {
    guard let last = elements.last else { return ([], 0) }
    let slot = try Self.slot(of: elements)
    let index = workers == 1 ? 0 : PoolSpread.index(of: last, encoded: try Self.encode(last), workers: workers)
    return (slot, index)
  }

  /// The slot of the child of `elements`: each id's encoding, with its length before it, so
  /// that the slots of the children inside an element begin with the element's slot.
  static func slot(of elements: [any Sendable]) throws -> [UInt8] {
    var writer = ByteWriter()
    for element in elements { writer.write(bytes: try encode(element)) }
    return writer.bytes
  }

  private static func encode(_ element: any Sendable) throws -> [UInt8] {
    guard let encodable = element as? any Encodable else {
      throw DistributionError.notCodable(boundary: "forEach", type: "\(type(of: element))")
    }
    return try BinaryEncoder().encode(encodable)
  }
}
