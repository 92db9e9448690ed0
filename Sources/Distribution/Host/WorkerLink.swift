import Bulkhead
import Foundation
import Synchronization
internal import Transport

/// One running worker as the host holds it: its process, its `BoundaryEndpoint` that the
/// host's reducers call synchronously on the control connection (read by the caller: no
/// thread of its own, no hop), and its effects.
///
/// A link that failed once — a request that timed out, bytes that did not decode, a
/// connection that broke — is never used again: its worker is killed, so that a late reply
/// can never be taken for the answer to another request.
final class WorkerLink: Sendable {
  let process: any WorkerHandle
  let effects: HostEffects
  /// The worker's endpoint; its lock lets the liveness probe skip a link busy with a request.
  private let control: Locked<BoundaryEndpoint>
  private let controlSystem: SocketActorSystem
  private let boundary: String
  private let deadline: Duration
  /// The memory limit the placement set on the worker, to name when it ended there.
  private let memoryLimit: Int?
  /// Why the link was given up or let go, once it was.
  private let fault = Locked<Ending?>(nil)
  /// What runs after the first answer (`whenFirstAnswered`), until it has run.
  private let firstAnswer = Mutex<(@Sendable () -> Void)?>(nil)
  /// When the worker last answered.
  private let lastAnswer = Locked(ContinuousClock.now)
  /// How long a held reply (`slow`) the wait for a reply allows for, in milliseconds beyond
  /// the deadline: changed under the control connection's lock, when a request holds longer
  /// or shorter than the last.
  private let allowedHold = Atomic<UInt64>(0)

  var pid: Int32 { process.pid }

  /// Why a link is used no more.
  private enum Ending {
    /// The worker failed, and was killed.
    case failed(RestartReason)
    /// The host let the worker go (it retired, its boundary failed, the composition shut
    /// down): said in words, to whoever still asks it something.
    case letGo(String)
  }

  /// Starts a worker for `plan`, named `name`, and waits until it has proved itself on both
  /// connections and greeted the host as a worker for the expected boundary and types.
  convenience init(_ plan: WorkerLink.Plan, name: String) throws {
    try self.init(plan, Self.connect(plan, name: name, serving: plan.boundary, brief: plan.inner.brief))
  }

  /// Makes `warm`, a worker of the composition's warm pool, the worker of `plan`'s boundary:
  /// one request on the connection it holds, with no process start, connection or handshake.
  convenience init(_ plan: WorkerLink.Plan, claiming warm: WarmWorker) throws {
    guard var connected = warm.claim(label: plan.boundary) else {
      throw DistributionError.workerUnavailable(
        boundary: plan.boundary, reason: .gaveUp(pid: warm.pid, reason: "it was claimed already"))
    }
    let process = connected.process
    do {
      let answer = try connected.endpoint.handleSynchronously(.assign(boundary: plan.boundary, brief: plan.inner.brief))
      guard case let .assigned(hello) = answer.reply else {
        throw DistributionError.protocolViolation("warm worker \(process.pid) answered an assignment with \"\(answer.reply)\"")
      }
      connected.hello = hello
    } catch {
      connected.system.close()
      process.kill()
      throw Self.unavailable(plan, process, error)
    }
    try self.init(plan, connected)
  }

  /// Takes over a worker that is connected, authenticated and has greeted the host, once its
  /// greeting is the one expected.
  private init(_ plan: WorkerLink.Plan, _ connected: Connected) throws {
    boundary = plan.boundary
    deadline = plan.deadline
    memoryLimit = plan.limits?.limits.memoryBytes
    let process = connected.process
    controlSystem = connected.system
    do {
      try Self.check(connected.hello, from: process, plan: plan)
      // Every request has a deadline; so has every write, to a worker that stopped reading.
      try connected.control.setSendTimeout(milliseconds: plan.deadline.wholeMilliseconds)
      try connected.effects.setSendTimeout(milliseconds: plan.deadline.wholeMilliseconds)
      try controlSystem.setReplyTimeout(milliseconds: plan.deadline.wholeMilliseconds)
    } catch {
      controlSystem.close()
      process.kill()
      throw Self.unavailable(plan, process, error)
    }
    self.control = Locked(connected.endpoint)
    self.process = process
    let pid = process.pid
    let fault = fault
    let memoryLimit = memoryLimit
    self.effects = try HostEffects(
      connected.effects, boundary: plan.boundary,
      onClose: { plan.report(.workerExited(boundary: plan.boundary, pid: pid)) },
      onFault: { reason in
        let reason = Self.why(reason, process: process, memoryLimit: memoryLimit)
        fault.withLock { $0 = $0 ?? .failed(reason) }
        process.kill()
      },
      onLost: { plan.report(.effectsLost(boundary: plan.boundary, count: $0)) })
  }

  static func unavailable(_ plan: WorkerLink.Plan, _ process: any WorkerHandle, _ error: any Error) -> any Error {
    if error is DistributionError { return error }
    let reason: DistributionError.WorkerFailure =
      switch error as? TransportError {
      case .timedOut?: .didNotConnect(worker: process.name, pid: process.pid, deadline: plan.startupDeadline)
      default: .unreachable(worker: process.name, pid: process.pid, error: "\(error)")
      }
    return DistributionError.workerUnavailable(boundary: plan.boundary, reason: reason)
  }

  /// Refuses a worker that does not say it serves the expected boundary: one built from other
  /// code, or one that refused, started for an app or a boundary its executable lacks.
  private static func check(_ hello: Wire.Hello, from process: any WorkerHandle, plan: WorkerLink.Plan) throws {
    let expected = plan.expected
    let name = process.name
    let executable = plan.command.executable.lastPathComponent
    switch hello {
    case let .refusing(refusal):
      throw DistributionError.workerUnavailable(
        boundary: expected.boundary,
        reason: .refused(worker: name, explanation: refusal.explanation(worker: name, executable: executable)))
    case let .serving(greeting) where greeting != expected:
      throw DistributionError.workerUnavailable(
        boundary: expected.boundary,
        reason: .servesAnother(worker: name, executable: executable, serves: "\(greeting)", expected: "\(expected)"))
    case .warm where expected.boundary != Wire.warmBoundary:
      throw DistributionError.workerUnavailable(
        boundary: expected.boundary,
        reason: .servesAnother(worker: name, executable: executable, serves: "no boundary yet", expected: "\(expected)"))
    case .serving, .warm:
      return
    }
  }

  /// Calls the worker's endpoint with `request` and waits for the answer on the calling
  /// thread, at most for the boundary's deadline plus the time the request asks the worker to
  /// hold its reply (`slow`): no thread hop on the path of an action. Returns the reply, the
  /// runtime warnings the worker raised while handling the request, and the bytes sent and
  /// received. Any failure gives the link up.
  ///
  /// This wait is the one place where the host's reducer blocks: a synchronous `reduce` needs
  /// the worker's answer before it returns (and, when the worker is being restarted, its
  /// successor's start, back-off included, which `RemoteBoundary` waits for first). No
  /// thread sleeps for a back-off or for `slow` (docs/state-machines.md, "Host side").
  /// Runs `body` once, after the worker's first answer, or when the link is given up or let
  /// go before it: the warm pool forks the replacement of a worker it handed out then.
  func whenFirstAnswered(_ body: @escaping @Sendable () -> Void) {
    firstAnswer.withLock { $0 = body }
  }

  /// Runs what waits for the first answer, once.
  private func firstAnswered() {
    firstAnswer.withLock { $0.take() }?()
  }

  func request(_ request: Wire.Request) throws -> Exchange {
    defer { firstAnswered() }
    if let ending = fault.withLock({ $0 }) { throw error(for: ending) }
    return try givingUpOnFailure {
      try control.withLock { endpoint in
        try allow(hold: request)
        return try exchange(request, with: endpoint)
      }
    }
  }

  /// Makes the wait for the reply to `request` allow for the time it asks the worker to hold
  /// the reply, so that a worker slowed on purpose is not taken for one that stalled. Under
  /// the control connection's lock.
  private func allow(hold request: Wire.Request) throws {
    guard case let .run(_, _, _, _, _, hold) = request, hold != allowedHold.load(ordering: .relaxed) else { return }
    let milliseconds = Int64(deadline.wholeMilliseconds) + Int64(clamping: hold)
    try controlSystem.setReplyTimeout(milliseconds: Int32(clamping: milliseconds))
    allowedHold.store(hold, ordering: .relaxed)
  }

  /// Checks that the worker still answers within its deadline: on its effects connection, the
  /// ping the last probe sent (without waiting for the next one's pong), and on its control
  /// connection, when nobody has asked it anything for `idle`, a ping whose reply it waits
  /// for. A stopped worker whose effects were meant to be running is noticed without waiting
  /// for the next action. Skips a control connection busy with a request.
  func probe(ifIdleFor idle: Duration) throws {
    guard fault.withLock({ $0 }) == nil else { return }
    try givingUpOnFailure {
      // Effects move on their own connection, which may stop while requests still pass.
      guard effects.answersPings(within: deadline) else {
        throw RemoteCallError.deadlineExceeded("the effects endpoint of worker \(pid)", deadline)
      }
      guard lastAnswer.withLock({ $0 }).duration(to: .now) >= idle else { return }
      let reply = try control.withLockIfAvailable { endpoint in try exchange(.ping, with: endpoint).reply }
      guard reply == nil || reply == .pong else {
        throw DistributionError.protocolViolation("worker \(pid) answered a ping with \(reply.map(String.init(describing:)) ?? "")")
      }
    }
  }

  /// Runs `body`, and gives the link up if it fails: a timeout is a stall, anything else a
  /// fault of the worker's, which the first reason found names (the effects connection may
  /// have found one before the request did).
  private func givingUpOnFailure<Result>(_ body: () throws -> Result) throws -> Result {
    do {
      return try body()
    } catch RemoteCallError.deadlineExceeded {
      abandon(because: .stalled(deadline: deadline))
      throw WorkerLink.GivenUp(pid: pid, reason: .stalled(deadline: deadline))
    } catch {
      abandon(because: Self.why(Self.reason(error), process: process, memoryLimit: memoryLimit))
      throw fault.withLock { $0 }.map(self.error(for:)) ?? error
    }
  }

  /// How long the host waits at most, after a connection of a worker with a memory limit
  /// ended, to learn whether the limit ended it: the end of its output follows the end of its
  /// connections within a millisecond or so, but hundreds of them on a loaded machine (250 ms
  /// was seen to fall short, and the limit was reported as a plain exit). A worker that has
  /// exited ends the wait at once; only one whose connection ended while it lives on waits it
  /// all, before its restart.
  static let limitVerdictWait: Int32 = 2_000

  /// `reason`, or, when a connection ended or broke because the worker ended at its memory
  /// limit, that limit.
  private static func why(_ reason: RestartReason, process: any WorkerHandle, memoryLimit: Int?) -> RestartReason {
    switch reason {
    case .connectionEnded, .connectionFailed:
      guard let memoryLimit, process.endedAtMemoryLimit(waitingAtMost: limitVerdictWait) else { return reason }
      return .exceededLimit(.memory(bytes: memoryLimit))
    case .stalled, .killedOnRequest, .brokeProtocol, .startFailed, .exceededLimit:
      return reason
    }
  }

  /// Why a request that failed with `error` gives the worker up.
  private static func reason(_ error: any Error) -> RestartReason {
    switch error {
    case RemoteCallError.peerDisconnected: .connectionEnded(.control)
    case is RemoteCallError, is TransportError: .connectionFailed(.control, "\(error)")
    default: .brokeProtocol(ProtocolViolation(error))
    }
  }

  /// What a request on a link that is used no more throws.
  private func error(for ending: Ending) -> any Error {
    switch ending {
    case let .failed(reason): WorkerLink.GivenUp(pid: pid, reason: reason)
    case let .letGo(why): DistributionError.workerUnavailable(boundary: boundary, reason: .gaveUp(pid: pid, reason: why))
    }
  }

  /// A request's reply, with what came before it.
  struct Exchange {
    let reply: Wire.Reply
    /// The runtime warnings the worker raised while it handled the request.
    let warnings: [String]
    /// Payload bytes sent and received.
    let sent: Int
    let received: Int
    /// How long the worker took to handle the request, by its clock.
    let handlingNanoseconds: UInt64
  }

  /// How many warnings may come with one reply: far more than a reducer raises for one
  /// action, and few enough that a worker cannot flood the host with them.
  static let maximumWarnings = 64

  private func exchange(_ request: Wire.Request, with endpoint: BoundaryEndpoint) throws -> Exchange {
    let (sent, received) = (controlSystem.bytesSent, controlSystem.bytesReceived)
    let answer = try endpoint.handleSynchronously(request)
    guard answer.warnings.count <= Self.maximumWarnings else {
      throw DistributionError.protocolViolation("worker \(pid) sent more than \(Self.maximumWarnings) warnings with one reply")
    }
    lastAnswer.withLock { $0 = .now }
    return Exchange(
      reply: answer.reply, warnings: answer.warnings, sent: controlSystem.bytesSent - sent,
      received: controlSystem.bytesReceived - received, handlingNanoseconds: answer.handlingNanoseconds)
  }

  /// Gives the worker up after it crashed, stalled or misbehaved: kills it at once. Its
  /// connections end with it, and its running effects are reported lost.
  func abandon(because reason: RestartReason) {
    defer { firstAnswered() }
    fault.withLock { $0 = $0 ?? .failed(reason) }
    process.kill()
    controlSystem.close()
    effects.close()
  }

  /// Lets the worker go without waiting for it: its effects end without being reported lost,
  /// and it exits on its own when its input closes.
  func retire() {
    defer { firstAnswered() }
    fault.withLock { $0 = $0 ?? .letGo("it was retired") }
    effects.retire()
    controlSystem.close()
    process.closeInput()
  }

  /// Lets the worker go when its boundary failed: nothing will run its effects' actions any
  /// more, so those still running are reported lost; it exits on its own when its input closes.
  func letGo(because reason: String) {
    defer { firstAnswered() }
    fault.withLock { $0 = $0 ?? .letGo(reason) }
    // Effects first, reporting them: the worker exits once its control connection ends.
    effects.close()
    controlSystem.close()
    process.closeInput()
  }

  /// Ends the connections at shutdown: effects still running end as the shutdown means them
  /// to, not reported lost; the composition's roster sees the process out.
  func close() {
    defer { firstAnswered() }
    fault.withLock { $0 = $0 ?? .letGo("the composition shut down") }
    // Effects first: once the control connection ends, the worker exits, and its effects
    // connection closing first would count them lost.
    effects.retire()
    controlSystem.close()
    process.closeInput()
  }
}
