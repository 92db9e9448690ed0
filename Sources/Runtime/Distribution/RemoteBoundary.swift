import Synchronization
import Transport

/// The host's side of one boundary placed in workers: keeps, per worker, the version and
/// encoding of each child state the worker has seen; brings the worker up to date before an
/// action when the host changed the state; applies the worker's patch; restarts dead workers
/// from the host's copy and re-runs the action that was in flight; lets a worker go when the
/// child it served leaves the host's state.
final class RemoteBoundary: Sendable {
  let path: String
  /// Whether a worker is retired, and a fresh one started, when its child state is removed:
  /// for an `ifLet` or `ifCaseLet` whose child is the only one its workers serve.
  private let retiresWorkers: Bool
  private let launch: @Sendable (_ index: Int) throws -> WorkerLink
  private let policy: RestartPolicy
  private let report: @Sendable (BoundaryEvent) -> Void
  private let pool: Locked<Pool>

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
    /// Retired workers that may still be exiting.
    var retired: [WorkerLink] = []
    var restarts: [ContinuousClock.Instant] = []
    var failure: String?
    var statistics = BoundaryStatistics()

    /// The worker that serves `slot`: the same one for an element id in every run.
    func index(of slot: [UInt8]) -> Int {
      slot.isEmpty ? 0 : Int(RemoteBoundary.hash(slot) % UInt64(members.count))
    }
  }

  init(
    path: String, workers: Int, retiresWorkers: Bool, policy: RestartPolicy,
    report: @escaping @Sendable (BoundaryEvent) -> Void,
    launch: @escaping @Sendable (_ index: Int) throws -> WorkerLink
  ) {
    self.path = path
    self.retiresWorkers = retiresWorkers
    self.launch = launch
    self.policy = policy
    self.report = report
    self.pool = Locked(
      Pool(
        members: Array(repeating: .empty, count: workers), synced: Array(repeating: [:], count: workers),
        offers: Array(repeating: [:], count: workers)))
  }

  /// What has crossed this boundary so far.
  var statistics: BoundaryStatistics { pool.withLock { $0.statistics } }

  /// The pids of the running workers, in pool order.
  var pids: [Int32] { pool.withLock { $0.members.compactMap { $0.link?.pid } } }

  /// Starts every worker of the pool that is not running.
  func start() throws {
    try pool.withLock { pool in
      for index in pool.members.indices {
        _ = try running(&pool, index)
      }
    }
  }

  /// Stops every worker, including retired ones still exiting and successors still starting.
  func stop() {
    let (members, retired) = pool.withLock { pool in
      defer {
        pool.members = pool.members.map { _ in .empty }
        pool.retired = []
      }
      return (pool.members, pool.retired)
    }
    for member in members {
      switch member {
      case .empty: break
      case let .starting(start): (try? start.wait())?.stop()
      case let .running(link): link.stop()
      }
    }
    for link in retired { link.stop() }
  }

  /// Kills the worker at `index` with SIGKILL, as a crash would: for fault injection.
  func kill(worker index: Int) {
    pool.withLock { $0.members[index].link?.process.kill() }
  }

  /// The child state of `element`, or the boundary's only child when `element` is nil, left
  /// the host's state. Its worker forgets its copy, or is retired and replaced by a fresh one.
  /// The child's effects are cancelled by the host in the same pass.
  func remove(element: (any Sendable)?) {
    guard let slot = try? element.map(Self.encodeElement) ?? [] else { return }
    pool.withLock { pool in
      let index = pool.index(of: slot)
      guard pool.synced[index].removeValue(forKey: slot) != nil else { return }
      if retiresWorkers {
        retire(&pool, index)
        pool.statistics.workersRetired += 1
      } else {
        pool.statistics.slotsDropped += 1
        // A worker that is gone has nothing left to forget; its successor starts empty.
        _ = try? pool.members[index].link?.request(.drop(slot: slot))
      }
    }
  }

  /// Runs `action` on `state` in the worker that serves it, and returns the child's effects
  /// as the host runs them.
  func reduce<Child: Reducer>(
    _: Child.Type, into state: inout Child.State, action: Child.Action, element: (any Sendable)?
  ) -> Effect<Child.Action> {
    guard let states = ValueCoding(Child.State.self), let actions = ValueCoding(Child.Action.self)
    else {
      report(.actionFailed(boundary: path, reason: "\(Child.State.self) or \(Child.Action.self) is not Codable"))
      return .none
    }
    let slot: [UInt8]
    let actionBytes: [UInt8]
    do {
      slot = try element.map(Self.encodeElement) ?? []
      actionBytes = try actions.encode(action)
    } catch {
      report(.actionFailed(boundary: path, reason: "\(error)"))
      return .none
    }
    return pool.withLock { pool in
      exchange(&pool, slot: slot, action: actionBytes, state: &state, states: states, actions: actions)
    }
  }

  private func exchange<State, Action: Sendable>(
    _ pool: inout Pool, slot: [UInt8], action: [UInt8], state: inout State,
    states: ValueCoding<State>, actions: ValueCoding<Action>
  ) -> Effect<Action> {
    let index = pool.index(of: slot)
    while pool.failure == nil {
      do {
        let link = try running(&pool, index)
        let synced = pool.synced[index][slot]
        let patch = try states.patch(synced?.state as? State, state)
        let reply: Wire.Reply
        if let offer = pool.offers[index].removeValue(forKey: slot), offer.link === link,
          offer.action == action, patch == nil, let synced, offer.outcome.baseVersion == synced.version
        {
          pool.taken.insert(Taken(link: ObjectIdentifier(link), sequence: offer.sequence))
          pool.statistics.recordPrecomputed(workerPatch: offer.outcome.patch)
          reply = .ran(offer.outcome)
        } else {
          let request = Wire.Request.run(
            slot: slot, baseVersion: synced?.version ?? Wire.emptyVersion, patch: patch, action: action)
          let (answer, sent, received) = try link.request(request)
          pool.statistics.record(sent: sent, received: received, hostPatch: patch, workerPatch: answer.patch)
          reply = answer
        }
        switch reply {
        case let .ran(outcome):
          if let patch = outcome.patch { state = try states.apply(patch, state) }
          pool.synced[index][slot] = Synced(version: outcome.version, state: state)
          let outcomes = outcomes(link: link, index: index, slot: slot)
          return try Effect(outcome.effect, decode: actions.decode) { run in
            link.effects.proxy(run: run, decode: actions.decode, outcomes: outcomes)
          }
        case .stale:
          pool.synced[index][slot] = nil
        case let .failed(reason):
          report(.actionFailed(boundary: path, reason: reason))
          return .none
        case .dropped:
          throw DistributionError.protocolViolation("a worker answered a run with \"dropped\"")
        }
      } catch {
        restart(&pool, index, after: "\(error)")
      }
    }
    return .none
  }

  /// Where the proxies of one slot's effects offer the outcomes their worker computed ahead.
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
      })
  }

  private func running(_ pool: inout Pool, _ index: Int) throws -> WorkerLink {
    switch pool.members[index] {
    case let .running(link):
      return link
    case let .starting(start):
      pool.members[index] = .empty
      let link = try start.wait()
      pool.members[index] = .running(link)
      return link
    case .empty:
      let link = try launch(index)
      pool.members[index] = .running(link)
      return link
    }
  }

  /// Lets the worker at `index` go without waiting for it to exit, and starts its successor
  /// in the background.
  private func retire(_ pool: inout Pool, _ index: Int) {
    guard let link = pool.members[index].link else { return }
    report(.workerRetired(boundary: path, pid: link.pid))
    link.retire()
    forget(&pool, index, link)
    pool.retired.removeAll { $0.hasExited }
    pool.retired.append(link)
    pool.members[index] = .starting(WorkerStart { [launch] in try launch(index) })
  }

  /// Forgets what the host knew of the worker at `index`, about to go: its copies of child
  /// states, and its outcomes offered or taken.
  private func forget(_ pool: inout Pool, _ index: Int, _ link: WorkerLink?) {
    pool.synced[index] = [:]
    pool.offers[index] = [:]
    if let link { pool.taken = pool.taken.filter { $0.link != ObjectIdentifier(link) } }
  }

  /// Drops the worker at `index` after it died or misbehaved, forgetting what it had; marks
  /// the boundary failed when it has been restarted too often.
  private func restart(_ pool: inout Pool, _ index: Int, after reason: String) {
    let link = pool.members[index].link
    link?.stop()
    pool.members[index] = .empty
    forget(&pool, index, link)
    pool.statistics.failures += 1
    guard policy.allowsRestart(at: .now, after: &pool.restarts) else {
      let failure = "\(reason); restarted \(policy.maximumRestarts) times within \(policy.period)"
      pool.failure = failure
      report(.boundaryFailed(boundary: path, reason: failure))
      return
    }
    do {
      let link = try launch(index)
      pool.members[index] = .running(link)
      report(.workerRestarted(boundary: path, pid: link.pid, reason: reason))
    } catch {
      report(.actionFailed(boundary: path, reason: "restart failed: \(error)"))
    }
  }

  private static func encodeElement(_ element: any Sendable) throws -> [UInt8] {
    guard let encodable = element as? any Encodable else {
      throw DistributionError.notCodable(boundary: "forEach", type: "\(type(of: element))")
    }
    return try BinaryEncoder().encode(encodable)
  }

  /// FNV-1a: the same element lands on the same worker in every run.
  fileprivate static func hash(_ bytes: [UInt8]) -> UInt64 {
    bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
  }
}
