import Foundation
import Synchronization
internal import Transport

extension WorkerLink {
  /// Worker starts in this process so far, which number their sockets.
  private static let starts = Atomic<UInt64>(0)

  /// A worker connected on both connections, authenticated, and asked what it serves: what a
  /// link is made of, and what the warm pool keeps until a boundary claims it.
  struct Connected {
    let process: any WorkerHandle
    let control: FramedConnection
    let effects: FramedConnection
    let system: SocketActorSystem
    let endpoint: BoundaryEndpoint
    /// What it said it serves.
    var hello: Wire.Hello
  }

  /// Starts a worker named `name` for `boundary` (forked from the template when there is one,
  /// spawned otherwise, served by a thread for a loopback command), waits until it has proved
  /// itself on both connections, and asks its greeting, within `plan`'s start-up deadline.
  static func connect(_ plan: WorkerLink.Plan, name: String, serving boundary: String, brief: String) throws -> Connected {
    let started = try start(plan, name: name, serving: boundary, brief: brief)
    return try greet(
      plan, started.process, control: started.control, effects: started.effects, startupDeadline: started.deadline)
  }

  /// A worker started and its two connections to this host, which are how a worker's
  /// connections are had: a thread's are a socket pair, a forked worker's come with its fork
  /// (`HandedConnections`), a spawned worker connects to a listener of its own and proves
  /// itself on each (`WorkerAcceptor`). The greeting may take until `deadline`.
  private static func start(
    _ plan: WorkerLink.Plan, name: String, serving boundary: String, brief: String
  ) throws -> (process: any WorkerHandle, control: FramedConnection, effects: FramedConnection, deadline: ContinuousClock.Instant) {
    if let serve = plan.command.servesInProcess {
      let inner = plan.inner
      let peer = try InProcessPeer.start { control, effects in serve(boundary, inner, control, effects) }
      return (LoopbackWorker(name: name, peer: peer), peer.control, peer.effects, .now + plan.startupDeadline)
    }
    if let templates = plan.templates {
      let deadline = ContinuousClock.now + plan.startupDeadline
      let handed = try HandedConnections()
      if let process = templates.fork(
        name: name, boundary: boundary, handing: handed, brief: brief, within: plan.startupDeadline,
        limits: plan.limits, output: plan.output)
      {
        try admit(process, plan)
        return (process, handed.control, handed.effects, deadline)
      }
    }
    let secret = LaunchSecret.random()
    // A directory removed under a running host (a /tmp cleaner, a user) is made again.
    try plan.directory.ensureExists()
    // A socket of its own for each start: a move can start a worker at a place while the
    // start it cut off (a retirement's successor) still listens there.
    let listener = try UnixListener(path: plan.directory.path(for: "\(name).\(starts.add(1, ordering: .relaxed).newValue)"))
    defer { listener.close() }
    let process = try WorkerProcess(
      name: name, executable: plan.command.executable, arguments: plan.command.arguments(boundary),
      socketPath: listener.path, secret: secret, brief: brief, limits: plan.limits, output: plan.output)
    try admit(process, plan)
    let acceptor = WorkerAcceptor(listener: listener, worker: process, secret: secret, within: plan.startupDeadline)
    do {
      let refused: (TransportError) -> Void = { error in
        plan.report(.connectionRefused(boundary: plan.boundary, reason: "\(error)"))
      }
      let control = try acceptor.accept(onRefused: refused)
      return (process, control, try acceptor.accept(onRefused: refused), acceptor.deadline)
    } catch {
      process.kill()
      throw unavailable(plan, process, error)
    }
  }

  /// Puts a started worker on the roster, which stops it at shutdown; a roster shut down
  /// already refuses it.
  private static func admit(_ process: WorkerProcess, _ plan: WorkerLink.Plan) throws {
    guard plan.roster.admit(process) else {
      throw DistributionError.workerUnavailable(boundary: plan.boundary, reason: .shuttingDown)
    }
  }

  /// Asks a connected worker what it serves; the greeting may take what is left of the
  /// start-up deadline.
  private static func greet(
    _ plan: WorkerLink.Plan, _ process: any WorkerHandle, control: FramedConnection, effects: FramedConnection,
    startupDeadline: ContinuousClock.Instant
  ) throws -> Connected {
    let expected = plan.expected
    let name = process.name
    let system: SocketActorSystem
    do {
      let startup = max(1, ContinuousClock.now.duration(to: startupDeadline).wholeMilliseconds)
      try control.setReceiveTimeout(milliseconds: startup)
      try control.setSendTimeout(milliseconds: plan.deadline.wholeMilliseconds)
      system = SocketActorSystem(connection: control, callTimeout: plan.deadline, reading: .byCaller)
    } catch {
      process.kill()
      throw unavailable(plan, process, error)
    }
    do {
      let endpoint = try BoundaryEndpoint.resolve(id: BoundaryEndpoint.id, using: system)
      let hello = try endpoint.helloSynchronously()
      return Connected(process: process, control: control, effects: effects, system: system, endpoint: endpoint, hello: hello)
    } catch {
      system.close()
      process.kill()
      switch error {
      case RemoteCallError.peerDisconnected:
        throw DistributionError.workerUnavailable(boundary: expected.boundary, reason: .closedBeforeGreeting(worker: name))
      case RemoteCallError.deadlineExceeded:
        throw DistributionError.workerUnavailable(
          boundary: expected.boundary, reason: .didNotGreet(worker: name, pid: process.pid, deadline: plan.startupDeadline))
      case is DistributionError:
        throw error
      default:
        throw DistributionError.workerUnavailable(
          boundary: expected.boundary,
          reason: .noGreeting(
            worker: name, executable: plan.command.executable.lastPathComponent, error: "\(error)"))
      }
    }
  }
}
