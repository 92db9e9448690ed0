import Synchronization
import Transport

/// The host's side of one boundary placed in workers: keeps, per worker, the version and
/// encoding of each child state the worker has seen; brings the worker up to date before an
/// action when the host changed the state; applies the worker's patch; restarts dead workers
/// from the host's copy and re-runs the action that was in flight.
final class RemoteBoundary: Sendable {
  let path: String
  private let launch: @Sendable (_ index: Int) throws -> WorkerLink
  private let policy: RestartPolicy
  private let report: @Sendable (BoundaryEvent) -> Void
  private let pool: Locked<Pool>

  /// What the host knows of one child state in a worker: its version and its value there.
  private struct Synced {
    var version: UInt64
    var state: Any
  }

  private struct Pool {
    var links: [WorkerLink?]
    var synced: [[[UInt8]: Synced]]
    var restarts: [ContinuousClock.Instant] = []
    var failure: String?
    var statistics = BoundaryStatistics()
  }

  init(
    path: String, workers: Int, policy: RestartPolicy,
    report: @escaping @Sendable (BoundaryEvent) -> Void,
    launch: @escaping @Sendable (_ index: Int) throws -> WorkerLink
  ) {
    self.path = path
    self.launch = launch
    self.policy = policy
    self.report = report
    self.pool = Locked(Pool(links: Array(repeating: nil, count: workers), synced: Array(repeating: [:], count: workers)))
  }

  /// What has crossed this boundary so far.
  var statistics: BoundaryStatistics { pool.withLock { $0.statistics } }

  /// The pids of the running workers, in pool order.
  var pids: [Int32] { pool.withLock { $0.links.compactMap { $0?.pid } } }

  /// Starts every worker of the pool that is not running.
  func start() throws {
    try pool.withLock { pool in
      for index in pool.links.indices where pool.links[index] == nil {
        pool.links[index] = try launch(index)
      }
    }
  }

  /// Stops every worker.
  func stop() {
    let links = pool.withLock { pool in
      defer { pool.links = pool.links.map { _ in nil } }
      return pool.links.compactMap { $0 }
    }
    for link in links { link.stop() }
  }

  /// Kills the worker at `index` with SIGKILL, as a crash would: for fault injection.
  func kill(worker index: Int) {
    pool.withLock { $0.links[index]?.process.kill() }
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
    let index = slot.isEmpty ? 0 : Int(Self.hash(slot) % UInt64(pool.links.count))
    while pool.failure == nil {
      do {
        let link = try running(&pool, index)
        let synced = pool.synced[index][slot]
        let patch = try states.patch(synced?.state as? State, state)
        let request = Wire.Request.run(
          slot: slot, baseVersion: synced?.version ?? Wire.emptyVersion, patch: patch, action: action)
        let (reply, sent, received) = try link.request(request)
        pool.statistics.record(sent: sent, received: received, hostPatch: patch, workerPatch: reply.patch)
        switch reply {
        case let .ran(version, reply, portable):
          if let reply { state = try states.apply(reply, state) }
          pool.synced[index][slot] = Synced(version: version, state: state)
          return try Effect(portable, decode: actions.decode) { run in
            link.effects.proxy(run: run, decode: actions.decode)
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
        retire(&pool, index, reason: "\(error)")
      }
    }
    return .none
  }

  private func running(_ pool: inout Pool, _ index: Int) throws -> WorkerLink {
    if let link = pool.links[index] { return link }
    let link = try launch(index)
    pool.links[index] = link
    return link
  }

  /// Drops the worker at `index` after it died or misbehaved, forgetting what it had; marks
  /// the boundary failed when it has been restarted too often.
  private func retire(_ pool: inout Pool, _ index: Int, reason: String) {
    pool.links[index]?.stop()
    pool.links[index] = nil
    pool.synced[index] = [:]
    pool.statistics.failures += 1
    guard policy.allowsRestart(at: .now, after: &pool.restarts) else {
      let failure = "\(reason); restarted \(policy.maximumRestarts) times within \(policy.period)"
      pool.failure = failure
      report(.boundaryFailed(boundary: path, reason: failure))
      return
    }
    do {
      let link = try launch(index)
      pool.links[index] = link
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
  private static func hash(_ bytes: [UInt8]) -> UInt64 {
    bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
  }
}
