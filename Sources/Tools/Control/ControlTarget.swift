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

  /// The composition of `app` that is up; an error saying why when none is.
  init(app: String) throws(DistributionError) {
    self.app = app
    let location = RunDirectory.location()
    guard FileManager.default.fileExists(atPath: location) else {
      throw .usage("no composition of \(app) is running: there is no run directory \(location) (\"./compose.sh up \(app)\" starts one)")
    }
    directory = try RunDirectory.open(creating: false, at: location)
    let path = directory.runFile(of: app)
    guard let run = try RunFile.read(at: path) else {
      throw .usage("no composition of \(app) is running: there is no run file \(path) (\"./compose.sh up \(app)\" starts one)")
    }
    switch run.hostStatus(app: app) {
    case .up: break
    case .gone: throw .usage("no composition of \(app) is running: \(run.removeStale(at: path))")
    case let .unreachable(reason):
      throw .usage("\(reason); its run file \(path) is kept (is the host stopped? \"kill \(run.pid)\" ends it)")
    }
    self.run = run
  }

  /// A connection to the control endpoint, and the endpoint.
  func connect() throws(DistributionError) -> (system: SocketActorSystem, control: CompositionControl) {
    let socket: UnixSocket
    do {
      socket = try UnixSocket.connect(to: run.controlSocket)
    } catch {
      throw .usage("cannot reach the host of \(app) (pid \(run.pid)) at \(run.controlSocket): \(error)")
    }
    let system = SocketActorSystem(connection: FramedConnection(socket), callTimeout: Self.callTimeout)
    do {
      return (system, try CompositionControl.resolve(id: CompositionControl.id, using: system))
    } catch {
      system.close()
      throw .usage("cannot reach the control endpoint of \(app) (pid \(run.pid)): \(error)")
    }
  }

  /// Whether the host's process is still there: when it closes a connection, it went down,
  /// or it refused or dropped that one connection.
  var isHostUp: Bool { ProcessState(of: run.pid)?.isAlive == true }

  /// Runs `call`, and turns what the actor system throws into a sentence about this
  /// composition.
  func calling<Result: Sendable>(_ call: @Sendable () async throws -> Result) async throws(DistributionError) -> Result {
    do {
      return try await call()
    } catch {
      throw describing(error)
    }
  }

  /// What a call's `error` means, as a sentence about this composition.
  func describing(_ error: any Error) -> DistributionError {
    guard let error = error as? RemoteCallError else {
      return .usage("the call to the host of \(app) (pid \(run.pid)) failed: \(error)")
    }
    switch error {
    case let .remote(message): return .usage(message)
    case .deadlineExceeded:
      return .usage("the host of \(app) (pid \(run.pid)) did not answer within \(Self.callTimeout): is it stopped?")
    case .peerDisconnected:
      guard isHostUp else { return .usage("the host of \(app) (pid \(run.pid)) closed the control connection: it went down") }
      return .usage(
        "the host of \(app) (pid \(run.pid)) closed the control connection and is still up: it refused or dropped "
          + "this connection, and its log \(directory.hostLog(of: app)) says why")
    }
  }
}
