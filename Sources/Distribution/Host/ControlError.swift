package import Transport

/// What goes wrong when a tool works a running composition through its control socket: what
/// the control endpoint refuses, which crosses the socket as itself, and why a tool cannot
/// reach or hear the host. `description` is the one place the words for people are made.
///
/// ```swift
/// catch ControlError.noSuchWorker(let boundary, let index, let workers) { … }
/// ```
package enum ControlError: CodableError, Equatable, CustomStringConvertible {
  // Refused by the control endpoint.

  /// `boundary` has `workers` workers, numbered from 0; `index` is not one of them.
  case noSuchWorker(boundary: String, index: Int, workers: Int)
  /// `boundary` gave up restarting its workers, for `reason`, and runs none.
  case boundaryFailed(boundary: String, reason: BoundaryFailure)
  /// Worker `index` of `boundary` is being restarted and has no process to signal.
  case workerRestarting(boundary: String, index: Int)
  /// `boundary` was moved to the host and runs no workers to signal or slow.
  case inHost(boundary: String)
  /// A `slow` delay outside 0...`limit` milliseconds.
  case delayOutOfRange(milliseconds: Int, limit: Int)
  /// The composition is shutting down.
  case shuttingDown
  /// The app's script (which `up` runs first) was still running `after` this long.
  case scriptRunning(after: Duration)
  /// Action `index` (from 0) of those sent does not read: `message` says where and why.
  case actionUnreadable(index: Int, message: String)
  /// The root action `type` is not `Decodable`, so no text makes one.
  case notDecodable(type: String)
  /// The state `type` is not `Encodable`, so it has no JSON.
  case notEncodable(type: String)
  /// No state was found at `boundary`: `known` are the boundaries of the app.
  case noStateAt(boundary: String, known: [String])

  // Met by the host as it opens its control socket.

  /// The environment variable `variable` sets a deadline to `value`, which is not a whole
  /// number of milliseconds in `allowed`.
  case invalidDeadline(variable: String, value: String, allowed: ClosedRange<Int>)

  // Met by the tool on its way to the host of `app`.

  /// There is no run directory at `path`: no composition was ever up here.
  case noRunDirectory(app: String, path: String)
  /// There is no run file of `app` at `path`; `running` are the apps that have one.
  case noRunFile(app: String, path: String, running: [String])
  /// The host that wrote the run file is gone; `removed` says what was cleaned up.
  case hostGone(app: String, removed: String)
  /// The host's process `pid` lives, but its control socket refused a connection.
  case hostUnreachable(app: String, pid: Int32, socket: String, runFile: String, error: TransportError)
  /// The control socket `socket` of host `pid` could not be connected to.
  case cannotConnect(app: String, pid: Int32, socket: String, error: TransportError)
  /// Host `pid` did not answer a call within `timeout`.
  case noAnswer(app: String, pid: Int32, timeout: Duration)
  /// Host `pid` closed the control connection; `hostIsUp` says whether its process lives on,
  /// in which case its `log` says why it dropped the connection.
  case connectionClosed(app: String, pid: Int32, hostIsUp: Bool, log: String)
  /// A call to host `pid` failed otherwise: the error as the transport reported it.
  case callFailed(app: String, pid: Int32, error: String)
  /// Host `pid` still ran `after` it was asked to go down.
  case stillRunning(app: String, pid: Int32, after: Duration)

  package var description: String {
    switch self {
    case let .noSuchWorker(boundary, index, workers):
      "\(boundary) has \(workers == 1 ? "one worker, 0" : "workers 0 to \(workers - 1)"); there is no worker \(index)"
    case let .boundaryFailed(boundary, reason): "\(boundary) has failed and runs no workers: \(reason)"
    case let .workerRestarting(boundary, index):
      "worker \(index) of \(boundary) is not running now (it is being restarted); try again"
    case let .inHost(boundary):
      "\(boundary) runs in the host now (it was moved there) and has no workers; \"./compose.sh move APP \(boundary) worker\" moves it back"
    case let .delayOutOfRange(milliseconds, limit): "slow takes 0 to \(limit) ms; got \(milliseconds)"
    case .shuttingDown: "the composition is shutting down"
    case let .scriptRunning(after):
      "the app's script, which up runs first, is still running after \(after); send again once it has ended"
    case let .actionUnreadable(_, message): message
    case let .notDecodable(type):
      "the app's action \(type) is not Decodable, so send cannot make one from text; make it Codable"
    case let .notEncodable(type): "the state \(type) is not Encodable, so it has no JSON; leave out --json"
    case let .noStateAt(boundary, known):
      "there is no boundary \"\(boundary)\"\(ClosestName.suggestion(for: boundary, among: known)) whose state could be found; "
        + "the boundaries are: \(known.joined(separator: ", "))"
    case let .invalidDeadline(variable, value, allowed):
      "\(variable) must be a whole number of milliseconds from \(allowed.lowerBound) to \(allowed.upperBound); got \"\(value)\""
    case let .noRunDirectory(app, path):
      "no composition of \(app) is running: there is no run directory \(path) (\"./compose.sh up \(app)\" starts one)"
    case let .noRunFile(app, path, running):
      "no composition of \(app) is running\(ClosestName.suggestion(for: app, among: running)): there is no run file \(path) "
        + "(\"./compose.sh up \(app)\" starts one\(running.isEmpty ? "" : "; \"./compose.sh ps\" lists those that are up"))"
    case let .hostGone(app, removed): "no composition of \(app) is running: \(removed)"
    case let .hostUnreachable(app, pid, socket, runFile, error):
      "host pid \(pid) of \(app) is running, but its control socket \(socket) refuses connections (\(error)); "
        + "its run file \(runFile) is kept (is the host stopped? \"kill \(pid)\" ends it)"
    case let .cannotConnect(app, pid, socket, error): "cannot reach the host of \(app) (pid \(pid)) at \(socket): \(error)"
    case let .noAnswer(app, pid, timeout): "the host of \(app) (pid \(pid)) did not answer within \(timeout): is it stopped?"
    case let .connectionClosed(app, pid, hostIsUp, log):
      hostIsUp
        ? "the host of \(app) (pid \(pid)) closed the control connection and is still up: it refused or dropped "
          + "this connection, and its log \(log) says why"
        : "the host of \(app) (pid \(pid)) closed the control connection: it went down"
    case let .callFailed(app, pid, error): "the call to the host of \(app) (pid \(pid)) failed: \(error)"
    case let .stillRunning(app, pid, after): "the host of \(app) (pid \(pid)) is still running \(after) after down"
    }
  }
}
