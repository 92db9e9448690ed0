import Bulkhead
import Foundation
import Synchronization
internal import Transport

/// What a host needs to start a worker for one boundary.
struct WorkerLaunchPlan: Sendable {
  let boundary: String
  let expected: Wire.Greeting
  let command: WorkerCommand
  let directory: SocketDirectory
  let roster: WorkerRoster
  let deadline: Duration
  let startupDeadline: Duration
  let output: @Sendable (WorkerProcess.OutputLine) -> Void
  let report: @Sendable (BoundaryEvent) -> Void
}

/// A worker did not answer a request within its deadline.
struct WorkerStalled: Error, CustomStringConvertible {
  let pid: Int32
  let deadline: Duration

  var description: String { "worker \(pid) did not answer within \(deadline)" }
}

/// One running worker as the host holds it: its process, the control connection for
/// synchronous requests, and the effects connection.
///
/// A link that failed once — a request that timed out, bytes that did not decode, a
/// connection that broke — is never used again: its worker is killed, so that a late reply
/// can never be taken for the answer to another request.
final class WorkerLink: Sendable {
  let process: WorkerProcess
  let effects: HostEffects
  private let control: Locked<FramedConnection>
  /// Shuts the control socket down while a request may hold `control`.
  private let controlShutdown: SocketShutdown
  private let boundary: String
  private let deadline: Duration
  /// Why the link was given up, once it was.
  private let fault = Locked<String?>(nil)
  /// When the worker last answered.
  private let lastAnswer = Locked(ContinuousClock.now)

  var pid: Int32 { process.pid }

  /// Starts a worker for `plan`, named `name`, and waits until it has proved itself on both
  /// connections and greeted the host as a worker for the expected boundary and types.
  init(_ plan: WorkerLaunchPlan, name: String) throws {
    boundary = plan.boundary
    deadline = plan.deadline
    let secret = LaunchSecret.random()
    // A directory removed under a running host (a /tmp cleaner, a user) is made again.
    try plan.directory.ensureExists()
    let listener = try UnixListener(path: plan.directory.path(for: name))
    defer { listener.close() }
    let process = try WorkerProcess(
      name: name, executable: plan.command.executable, arguments: plan.command.arguments(plan.boundary),
      socketPath: listener.path, secret: secret, output: plan.output)
    guard plan.roster.admit(process) else {
      throw DistributionError.workerUnavailable(boundary: plan.boundary, reason: "the composition is shutting down")
    }
    let control: FramedConnection
    let effects: FramedConnection
    do {
      let acceptor = WorkerAcceptor(listener: listener, worker: process, secret: secret, within: plan.startupDeadline)
      let refused: (TransportError) -> Void = { error in
        plan.report(.connectionRefused(boundary: plan.boundary, reason: "\(error)"))
      }
      control = try acceptor.accept(onRefused: refused)
      effects = try acceptor.accept(onRefused: refused)
      try Self.check(greetingOn: control, from: process, plan: plan, before: acceptor.deadline)
      // Every request has a deadline; so has every write, to a worker that stopped reading.
      try control.setReceiveTimeout(milliseconds: plan.deadline.wholeMilliseconds)
      try control.setSendTimeout(milliseconds: plan.deadline.wholeMilliseconds)
      try effects.setSendTimeout(milliseconds: plan.deadline.wholeMilliseconds)
    } catch {
      process.kill()
      throw Self.unavailable(plan, process, error)
    }
    self.process = process
    self.control = Locked(control)
    controlShutdown = control.socket.shutdownHandle
    let pid = process.pid
    let fault = fault
    self.effects = HostEffects(
      effects, boundary: plan.boundary,
      onClose: { plan.report(.workerExited(boundary: plan.boundary, pid: pid)) },
      onFault: { reason in
        fault.withLock { $0 = $0 ?? reason }
        process.kill()
      },
      onLost: { plan.report(.effectsLost(boundary: plan.boundary, count: $0)) })
  }

  private static func unavailable(_ plan: WorkerLaunchPlan, _ process: WorkerProcess, _ error: any Error) -> any Error {
    if error is DistributionError { return error }
    let reason =
      switch error as? TransportError {
      case .timedOut?: "worker \(process.name) (pid \(process.pid)) did not connect within \(plan.startupDeadline)"
      default: "worker \(process.name) (pid \(process.pid)) could not be reached: \(error)"
      }
    return DistributionError.workerUnavailable(boundary: plan.boundary, reason: reason)
  }

  /// Refuses a worker that does not say it serves the expected boundary: one built from other
  /// code.
  private static func check(
    greetingOn control: FramedConnection, from process: WorkerProcess, plan: WorkerLaunchPlan,
    before deadline: ContinuousClock.Instant
  ) throws {
    let expected = plan.expected
    let name = process.name
    let rebuild = "rebuild \(plan.command.executable.lastPathComponent) with the host (\"./compose.sh run\" builds both)"
    let frame: Frame?
    do {
      frame = try control.receive(within: max(1, ContinuousClock.now.duration(to: deadline).wholeMilliseconds))
    } catch {
      throw DistributionError.workerUnavailable(
        boundary: expected.boundary, reason: "worker \(name) did not greet the host (\(error)); \(rebuild)")
    }
    guard let frame else {
      throw DistributionError.workerUnavailable(
        boundary: expected.boundary, reason: "worker \(name) closed its connection before it greeted the host")
    }
    let greeting: Wire.Greeting
    do {
      greeting = try Wire.decode(Wire.Greeting.self, from: frame)
    } catch {
      throw DistributionError.workerUnavailable(
        boundary: expected.boundary, reason: "worker \(name) sent no greeting the host understands (\(error)); \(rebuild)")
    }
    guard greeting == expected else {
      throw DistributionError.workerUnavailable(
        boundary: expected.boundary,
        reason: "worker \(name) serves \(greeting), the host expects \(expected); \(rebuild)")
    }
  }

  /// Sends `request` and waits for the reply on the calling thread, at most for the
  /// boundary's deadline: no thread hop on the path of an action. Returns the reply, the
  /// runtime warnings the worker raised while handling the request, and the payload bytes
  /// sent and received. Any failure gives the link up.
  func request(_ request: Wire.Request) throws -> Exchange {
    if let reason = fault.withLock({ $0 }) { throw unavailable(reason) }
    let frame = Wire.frame(request)
    return try givingUpOnFailure { try control.withLock { control in try exchange(frame, on: control) } }
  }

  /// Checks that the worker still answers within its deadline on its effects connection, and
  /// on its control connection when nobody has asked it anything for `idle`: a stopped
  /// worker whose effects were meant to be running is noticed without waiting for the next
  /// action. Skips a control connection busy with a request.
  func probe(ifIdleFor idle: Duration) throws {
    guard fault.withLock({ $0 }) == nil else { return }
    try givingUpOnFailure {
      // Effects move on their own connection, which may stop while requests still pass.
      guard effects.answersPing(within: deadline) else {
        throw TransportError.timedOut(path: "the effects connection of worker \(pid)", milliseconds: deadline.wholeMilliseconds)
      }
      guard lastAnswer.withLock({ $0 }).duration(to: .now) >= idle else { return }
      let frame = Wire.frame(Wire.Request.ping)
      let reply = try control.withLockIfAvailable { control in try exchange(frame, on: control).reply }
      guard reply == nil || reply == .pong else {
        throw DistributionError.protocolViolation("worker \(pid) answered a ping with \(reply.map(String.init(describing:)) ?? "")")
      }
    }
  }

  /// Runs `body`, and gives the link up if it fails: a timeout is a stall, anything else a
  /// fault of the worker's.
  private func givingUpOnFailure<Result>(_ body: () throws -> Result) throws -> Result {
    do {
      return try body()
    } catch TransportError.timedOut {
      abandon(because: "it stalled")
      throw WorkerStalled(pid: pid, deadline: deadline)
    } catch {
      abandon(because: "\(error)")
      throw fault.withLock { $0 }.map(unavailable) ?? error
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
  }

  /// How many warnings may come before one reply: far more than a reducer raises for one
  /// action, and few enough that a worker cannot flood the host with them.
  static let maximumWarnings = 64

  private func exchange(_ frame: Frame, on control: FramedConnection) throws -> Exchange {
    try control.send(frame)
    var warnings: [String] = []
    var received = 0
    while true {
      guard let reply = try control.receive() else { throw unavailable("the worker closed its connection") }
      received += reply.payload.count
      guard reply.kind == Wire.Warning.frameKind else {
        lastAnswer.withLock { $0 = .now }
        return Exchange(
          reply: try Wire.decode(Wire.Reply.self, from: reply), warnings: warnings, sent: frame.payload.count,
          received: received)
      }
      guard warnings.count < Self.maximumWarnings else {
        throw DistributionError.protocolViolation("worker \(pid) sent more than \(Self.maximumWarnings) warnings with one reply")
      }
      warnings.append(try Wire.decode(Wire.Warning.self, from: reply).message)
    }
  }

  private func unavailable(_ reason: String) -> DistributionError {
    .workerUnavailable(boundary: boundary, reason: "worker \(pid): \(reason)")
  }

  /// Gives the worker up after it crashed, stalled or misbehaved: kills it at once. Its
  /// connections end with it, and its running effects are reported lost.
  func abandon(because reason: String) {
    fault.withLock { $0 = $0 ?? reason }
    process.kill()
    controlShutdown.shutdown()
    effects.close()
  }

  /// Lets the worker go without waiting for it: its effects end without being reported lost,
  /// and it exits on its own when its input closes.
  func retire() {
    fault.withLock { $0 = $0 ?? "it was retired" }
    effects.retire()
    controlShutdown.shutdown()
    process.closeInput()
  }

  /// Ends the connections at shutdown: effects still running end as the shutdown means them
  /// to, not reported lost; the composition's roster sees the process out.
  func close() {
    fault.withLock { $0 = $0 ?? "the composition shut down" }
    // Effects first: once the control connection ends, the worker exits, and its effects
    // connection closing first would count them lost.
    effects.retire()
    controlShutdown.shutdown()
    process.closeInput()
  }
}
