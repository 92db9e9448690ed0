import Bulkhead
internal import Transport

/// What the host needs of a worker's link to keep it in a pool: who it is.
protocol PoolLink: AnyObject, Sendable {
  var pid: Int32 { get }
}

extension WorkerLink: PoolLink {}

/// The host's side of one boundary as a state machine: its pool of places (empty, starting,
/// running), the version of each child state each worker has seen, the outcomes workers
/// computed ahead and the ones the host took, its restarts against the policy, and where the
/// child runs (moves: BoundaryMachine+Move.swift). It takes events (an action to run, a reply,
/// a worker given up, a worker started, a child removed, a move) and returns what to do as
/// `Command`s; `RemoteBoundary` keeps it behind one lock and performs the commands outside
/// it. No clock, thread or socket inside: time comes in with the events that need it. Drawn in docs/state-machines.md, "Host side".
struct BoundaryMachine<Link: PoolLink> {
  let path: String
  /// Whether a worker is retired, and a fresh one started, when its child state is removed.
  let retiresWorkers: Bool
  /// Whether a retired worker's place stays vacant until an action claims a worker from the
  /// composition's warm pool, rather than holding a fresh worker of its own.
  let drawsFromWarmPool: Bool
  let policy: RestartPolicy

  // Set by the moves too (BoundaryMachine+Move.swift).
  var members: [PoolMember<Link>]
  private var synced: [[[UInt8]: Synced]]
  private var offers: [[[UInt8]: Offer]]
  private var taken: Set<Taken> = []
  private var restarts: [ContinuousClock.Instant] = []
  /// How often the worker at each place was restarted, for the control endpoint.
  private(set) var restartCounts: [Int]
  /// Failures since a worker last answered: each waits twice as long before the restart.
  private(set) var consecutiveFailures = 0
  /// Why the boundary failed for good, once it did.
  private(set) var failure: BoundaryFailure?
  private(set) var isStopped = false
  var statistics = BoundaryStatistics()
  /// Where the child runs now: in the pool's workers, or in the host after a move there.
  var residence = Residence.worker
  /// Actions that entered the boundary in its workers and have not left it: asking a worker,
  /// waiting for one to start, or making the proxies of its effects.
  var busy = 0
  /// Workers a move to the host let go while actions were still with them; they are drained
  /// once the last of those leaves.
  var leaving: [Link] = []
  /// Workers a move to the host let go, kept only until the effects they run have ended.
  var draining: [Link] = []

  /// What the host knows of one child state in a worker: its version and its value there,
  /// and the lineage whose state it was.
  private struct Synced {
    var version: UInt64
    var state: Any
    var lineage: UInt64
  }

  /// An effect action's outcome that a worker computed ahead, waiting for the host to run the
  /// action: taken instead of a request if the host's copy of the slot is still its base.
  private struct Offer {
    let link: Link
    let sequence: UInt64
    let action: [UInt8]
    let outcome: Wire.Outcome
  }

  /// An offer the host took, until its proxy tells the worker.
  private struct Taken: Hashable {
    let link: ObjectIdentifier
    let sequence: UInt64
  }

  /// What the host does next, decided by the machine and done outside its lock.
  enum Command {
    /// End `link`'s connections at shutdown, or a worker started for a place no longer waiting.
    case close(Link)
    /// Kill `link`, given up for `reason`: its running effects are reported lost.
    case abandon(Link, RestartReason)
    /// Let `link` go with its child, without waiting for it.
    case retire(Link)
    /// Let `link` go because its boundary failed: its running effects are reported lost.
    case letGo(Link, because: String)
    /// Start a worker at `index` for `start`, once `delay` has passed (the back-off): the
    /// successor of one given up for `reason`, or of one that retired (nil).
    case launch(index: Int, start: WorkerStart, after: Duration, restarting: RestartReason?)
    /// Keep `link`, which a move let go, for the effects it runs, and tell the machine when
    /// they have all ended (`drained`).
    case drain(Link)
    /// Ask `link` to forget `slot`.
    case drop(slot: [UInt8], from: Link)
    case report(BoundaryEvent)
  }

  /// What the host does for one action: take an outcome offered ahead, or ask the worker.
  enum Step {
    case take(Wire.Outcome)
    case ask(Wire.Request, hostPatch: StatePatch?)
  }

  init(path: String, workers: Int, retiresWorkers: Bool, drawsFromWarmPool: Bool = false, policy: RestartPolicy) {
    self.path = path
    self.retiresWorkers = retiresWorkers
    self.drawsFromWarmPool = retiresWorkers && drawsFromWarmPool
    self.policy = policy
    members = Array(repeating: self.drawsFromWarmPool ? .vacant : .empty, count: workers)
    synced = Array(repeating: [:], count: workers)
    offers = Array(repeating: [:], count: workers)
    restartCounts = Array(repeating: 0, count: workers)
  }

  /// Neither failed nor stopped: it takes actions.
  var isOpen: Bool { failure == nil && !isStopped }

  /// The place at `index` as an action finds it: empty once the boundary failed or stopped.
  func member(at index: Int) -> PoolMember<Link> {
    isOpen ? members[index] : .empty
  }

  /// Event: an action needs the worker at `index`, a vacant place: a start (a claim from the
  /// warm pool, or a worker of its own when the pool has none idle) takes the place, which
  /// the caller performs and waits for. Nil when the place is not vacant.
  mutating func claim(at index: Int) -> WorkerStart? {
    guard isOpen, case .vacant = members[index] else { return nil }
    let start = WorkerStart()
    members[index] = .starting(start)
    return start
  }

  /// Event: the pool's first worker at `index` started.
  mutating func started(_ link: Link, at index: Int) -> [Command] {
    guard isOpen, case .empty = members[index] else { return [.close(link)] }
    members[index] = .running(link)
    return []
  }

  /// Event: the composition stops. Every worker's connections end.
  mutating func stop() -> [Command] {
    isStopped = true
    defer {
      members = members.map { _ in .empty }
      (leaving, draining) = ([], [])
    }
    return (members.compactMap(\.link) + leaving + draining).map(Command.close)
  }

  /// Event: the worker that `start` waits for started as `link`, the successor of one given
  /// up for `reason` or retired (nil). A place that no longer waits for it lets it go.
  mutating func started(_ link: Link, at index: Int, for start: WorkerStart, restarting reason: RestartReason?)
    -> [Command]
  {
    guard isOpen, members[index].isSame(as: .starting(start)) else { return [.close(link)] }
    members[index] = .running(link)
    guard let reason else { return [] }
    restartCounts[index] += 1
    return [.report(.workerRestarted(boundary: path, pid: link.pid, reason: reason))]
  }

  /// Event: the child state in `slot` of the worker at `index` left the host's state. Its
  /// worker forgets its copy, or retires and a fresh one starts.
  mutating func removed(slot: [UInt8], at index: Int) -> [Command] {
    guard synced[index].removeValue(forKey: slot) != nil else { return [] }
    if retiresWorkers {
      statistics.workersRetired += 1
      return retire(index)
    }
    statistics.slotsDropped += 1
    return members[index].link.map { [.drop(slot: slot, from: $0)] } ?? []
  }

  /// Event: the child states whose slots begin with `prefix` left the host's state, in
  /// whichever workers hold them: a stack screen popped takes its children with it.
  mutating func removed(under prefix: [UInt8]) -> [Command] {
    var commands: [Command] = []
    for index in synced.indices {
      for slot in synced[index].keys where slot.starts(with: prefix) {
        commands += removed(slot: slot, at: index)
      }
    }
    return commands
  }

  /// Lets the worker at `index` go and puts a start of its successor in its place.
  private mutating func retire(_ index: Int) -> [Command] {
    guard let link = members[index].link else { return [] }
    forget(index, link)
    if drawsFromWarmPool {
      members[index] = .vacant
      return [.report(.workerRetired(boundary: path, pid: link.pid)), .retire(link)]
    }
    let start = WorkerStart()
    members[index] = .starting(start)
    return [
      .report(.workerRetired(boundary: path, pid: link.pid)), .retire(link),
      .launch(index: index, start: start, after: .zero, restarting: nil),
    ]
  }

  /// Forgets what the host knew of the worker at `index`, about to go: its copies of child
  /// states, and its outcomes offered or taken.
  mutating func forget(_ index: Int, _ link: Link?) {
    synced[index] = [:]
    offers[index] = [:]
    if let link { taken = taken.filter { $0.link != ObjectIdentifier(link) } }
  }

  /// Event: the host runs `action` on `slot` of `link`, the worker at `index`, for a store of
  /// `lineage`, whose copy of the child state `patch` compares with the host's (nil:
  /// unchanged). A copy the worker has from another lineage's state is no copy of this one:
  /// `patch` gets none, and the request carries the whole state. Takes the outcome the
  /// worker offered ahead if it started from the host's copy and the host's dependencies did
  /// not change (`dependencies` nil); else asks the worker, with the dependencies if changed,
  /// to hold its reply `holdReply` milliseconds (`slow`).
  mutating func step(
    slot: [UInt8], at index: Int, link: Link, lineage: UInt64, action: [UInt8],
    dependencies: Wire.DependencyHeader?, holdReply: UInt64 = 0, patch: (_ workerCopy: Any?) throws -> StatePatch?
  ) rethrows -> Step {
    let synced = synced[index][slot].flatMap { $0.lineage == lineage ? $0 : nil }
    let patch = try patch(synced?.state)
    let offer = offers[index].removeValue(forKey: slot)
    if let offer, offer.link === link, offer.action == action, patch == nil, dependencies == nil, let synced,
      offer.outcome.baseVersion == synced.version
    {
      taken.insert(Taken(link: ObjectIdentifier(link), sequence: offer.sequence))
      statistics.recordPrecomputed(workerPatch: offer.outcome.patch)
      return .take(offer.outcome)
    }
    let request = Wire.Request.run(
      slot: slot, baseVersion: synced?.version ?? Wire.emptyVersion, patch: patch, action: action,
      dependencies: dependencies, holdReply: holdReply)
    return .ask(request, hostPatch: patch)
  }

  /// Event: `link`, the worker at `index`, ran an action on `slot` for a store of `lineage`;
  /// the slot is now at `version` with the value `state` on both sides.
  mutating func ran(slot: [UInt8], at index: Int, link: Link, lineage: UInt64, version: UInt64, state: Any) {
    consecutiveFailures = 0
    guard members[index].link === link else { return }
    synced[index][slot] = Synced(version: version, state: state, lineage: lineage)
  }

  /// Event: `link` answered that its copy of `slot` is not the one the request, based on
  /// version `base`, was based on: the next request sends the whole state. A request that
  /// sent the whole state already (`base` is the empty version) replaced the worker's copy,
  /// so "stale" to it breaks the protocol.
  mutating func stale(slot: [UInt8], at index: Int, link: Link, base: UInt64) -> ProtocolViolation? {
    guard base != Wire.emptyVersion else { return .staleToWholeState }
    if members[index].link === link { synced[index][slot] = nil }
    return nil
  }

  /// Event: a proxy of `link` received effect action `sequence` with the outcome the worker
  /// computed for it ahead; it waits for the host to run the action.
  mutating func offered(
    slot: [UInt8], at index: Int, link: Link, sequence: UInt64, action: [UInt8], outcome: Wire.Outcome
  ) {
    guard members[index].link === link else { return }
    offers[index][slot] = Offer(link: link, sequence: sequence, action: action, outcome: outcome)
  }

  /// Event: the host processed effect action `sequence` of `link`. Whether it took the
  /// outcome offered with it, which the worker is then told.
  mutating func processed(slot: [UInt8], at index: Int, link: Link, sequence: UInt64) -> Bool {
    if offers[index][slot]?.sequence == sequence, offers[index][slot]?.link === link {
      offers[index][slot] = nil
    }
    return taken.remove(Taken(link: ObjectIdentifier(link), sequence: sequence)) != nil
  }

  /// Event, at `now`: `failed`, the worker or the start at `index`, was given up for
  /// `reason`. Unless another caller gave it up first, its successor starts from the host's
  /// copy after a back-off: one failure is one restart against the policy, however many
  /// actions, kills or starts noticed it. One restart too many fails the boundary, and lets
  /// the rest of its pool go. Whether actions may go on (`restarting`).
  mutating func gaveUp(
    _ failed: PoolMember<Link>, at index: Int, for reason: RestartReason, now: ContinuousClock.Instant
  ) -> (commands: [Command], restarting: Bool) {
    let abandon = failed.link.map { [Command.abandon($0, reason)] } ?? []
    guard isOpen else { return (abandon, false) }
    guard members[index].isSame(as: failed) else { return (abandon, true) }
    members[index] = .empty
    forget(index, failed.link)
    statistics.failures += 1
    if case .stalled = reason { statistics.stalls += 1 }
    guard policy.allowsRestart(at: now, after: &restarts) else {
      let failure = BoundaryFailure(last: reason, policy: policy)
      self.failure = failure
      // A failed boundary takes no more actions: the rest of its pool has nothing to do.
      let idle = members.compactMap(\.link).map { Command.letGo($0, because: "its boundary failed") }
      members = members.map { _ in .empty }
      return (abandon + idle + [.report(.boundaryFailed(boundary: path, reason: failure))], false)
    }
    consecutiveFailures += 1
    let start = WorkerStart()
    members[index] = .starting(start)
    let backoff = Self.backoff(after: consecutiveFailures)
    return (abandon + [.launch(index: index, start: start, after: backoff, restarting: reason)], true)
  }

  /// No wait before the first restart in a row; then 25 ms, doubling up to a second, so that
  /// a worker that fails at once is not started in a tight loop.
  static func backoff(after failures: Int) -> Duration {
    guard failures > 1 else { return .zero }
    return min(.milliseconds(25 << min(failures - 2, 6)), .seconds(1))
  }
}
