import Bulkhead
import BulkheadDistribution
import Distributed
import Foundation
internal import Transport

/// The detached composition of one app, found through its run file, and a connection to its
/// control endpoint. A run file left by a host that is gone is removed on the way, and said.
///
/// ```swift
/// let target = try ControlTarget(app: "timers")
/// let control = try target.connect()
/// let snapshot = try await target.calling { try await control.snapshot() }
/// ```
struct ControlTarget: Sendable {
  let app: String
  let directory: RunDirectory
  let run: RunFile

  /// How long the host may take to answer a call: it answers from a thread of its own, so
  /// only a host that is stopped or stuck takes longer.
  static let callTimeout = Duration.seconds(5)

  /// The composition of `app` that is up.
  ///
  /// - Throws: a `ControlError` that says why none is, or the `DistributionError` of a run
  ///   directory or file that cannot be read.
  init(app: String) throws {
    self.app = app
    let location = RunDirectory.location()
    guard FileManager.default.fileExists(atPath: location) else { throw ControlError.noRunDirectory(app: app, path: location) }
    directory = try RunDirectory.open(creating: false, at: location)
    let path = directory.runFile(of: app)
    guard let run = try RunFile.read(at: path) else {
      throw ControlError.noRunFile(app: app, path: path, running: directory.appsWithRunFiles)
    }
    switch run.hostStatus(app: app) {
    case .up: break
    case .gone: throw ControlError.hostGone(app: app, removed: run.removeStale(at: path))
    case let .unreachable(error):
      throw ControlError.hostUnreachable(app: app, pid: run.pid, socket: run.controlSocket, runFile: path, error: error)
    }
    self.run = run
  }

  /// A connection to the control endpoint, and the endpoint.
  func connect() throws(ControlError) -> (system: SocketActorSystem, control: CompositionControl) {
    let socket: UnixSocket
    do {
      socket = try UnixSocket.connect(to: run.controlSocket)
    } catch {
      throw .cannotConnect(app: app, pid: run.pid, socket: run.controlSocket, error: error)
    }
    let system = SocketActorSystem(connection: FramedConnection(socket), callTimeout: Self.callTimeout)
    do {
      return (system, try CompositionControl.resolve(id: CompositionControl.id, using: system))
    } catch {
      system.close()
      throw .callFailed(app: app, pid: run.pid, error: "\(error)")
    }
  }

  /// Whether the host's process is still there: when it closes a connection, it went down,
  /// or it refused or dropped that one connection.
  var isHostUp: Bool { ProcessState(of: run.pid)?.isAlive == true }

  /// Runs `call`, and turns what the actor system throws into what it means for this
  /// composition (`describing(_:)`).
  func calling<Result: Sendable>(_ call: @Sendable () async throws -> Result) async throws -> Result {
    do {
      return try await call()
    } catch {
      throw describing(error)
    }
  }

  /// What a call's `error` means for this composition: what the host refused, as the host
  /// threw it, or why the host could not be heard.
  func describing(_ error: any Error) -> any Error {
    if error is ControlError || error is DistributionError || error is MoveRefusal { return error }
    switch error as? RemoteCallError {
    case .deadlineExceeded?:
      return ControlError.noAnswer(app: app, pid: run.pid, timeout: Self.callTimeout)
    case .peerDisconnected?:
      return ControlError.connectionClosed(app: app, pid: run.pid, hostIsUp: isHostUp, log: directory.hostLog(of: app))
    default:
      return ControlError.callFailed(app: app, pid: run.pid, error: "\(error)")
    }
  }
}
