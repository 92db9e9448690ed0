import Foundation

/// What goes wrong bringing a composition up detached (`up`) or reading what it leaves in the
/// run directory: which file or process, and what the system said. `description` is the one
/// place the words for people are made.
///
/// ```swift
/// catch DetachedError.alreadyUp(let app, let pid, _, _) { … }
/// ```
enum DetachedError: Error, Equatable, CustomStringConvertible {
  /// The run directory `path` could not be made: the system's `errno`.
  case cannotMakeRunDirectory(path: String, errno: Int32)
  /// There is no run directory at `path`.
  case noRunDirectory(path: String)
  /// `path` is not a directory of this user's that only this user may open.
  case runDirectoryNotPrivate(path: String, mode: UInt32, owner: UInt32)
  /// The run file `path` is there but cannot be read.
  case unreadableRunFile(path: String)
  /// The file at `path` has no pid or control line: a host did not write it.
  case notARunFile(path: String)
  /// The run file `path` cannot be written: `field` has a line break in it.
  case lineBreakInRunFile(path: String, field: String)
  /// The run file `path` cannot be written: the system's `errno` if it said (`EEXIST`:
  /// another host wrote one first).
  case cannotWriteRunFile(path: String, errno: Int32?)
  /// The directory `path` cannot be watched for changes: the system's `errno`.
  case cannotWatch(path: String, errno: Int32)
  /// The boundary log `path` cannot be written: the system's `errno`.
  case cannotWriteBoundaryLog(path: String, errno: Int32)
  /// The lock `path` of an app's launches could not be taken: the system's `errno`.
  case cannotLock(path: String, errno: Int32)
  /// There is no log of `app` in the run directory `directory`.
  case noLog(app: String, directory: String)
  /// `app` is already up: its host `pid`, control socket and run file.
  case alreadyUp(app: String, pid: Int32, controlSocket: String, runFile: String)
  /// Every boundary of `app` is in the host: there is nothing to reach.
  case nothingPlaced(app: String)
  /// This process's executable cannot be found to start the host with.
  case noExecutable
  /// The host `executable` could not be started: the system's `errno`.
  case cannotStartHost(executable: String, errno: Int32)
  /// The host of `app` exited (`status`) before it was up; `logTail` is the end of its `log`.
  case hostExited(app: String, status: String, log: String, logTail: String)
  /// The host `pid` of `app` is not up after `readiness`; it goes on, writing `log`.
  case hostNotUp(app: String, pid: Int32, readiness: Duration, log: String)

  var description: String {
    switch self {
    case let .cannotMakeRunDirectory(path, errno): "cannot make the run directory \(path): \(Self.words(errno))"
    case let .noRunDirectory(path):
      "no run directory \(path): no composition was ever up here (\"./compose.sh up APP\" starts one)"
    case let .runDirectoryNotPrivate(path, mode, owner):
      "\(path) is not a private directory of this user (mode \(String(mode, radix: 8)), owner \(owner)); "
        + "remove it, or set XDG_RUNTIME_DIR to a directory of yours"
    case let .unreadableRunFile(path): "cannot read the run file \(path)"
    case let .notARunFile(path): "the run file \(path) was not written by a host (no pid or control line); remove it"
    case let .lineBreakInRunFile(path, field): "cannot write the run file \(path): \"\(field)\" has a line break in it"
    case let .cannotWriteRunFile(path, errno?):
      "cannot write the run file \(path): \(errno == EEXIST ? "another host wrote one first" : Self.words(errno))"
    case let .cannotWriteRunFile(path, nil): "cannot write the run file \(path)"
    case let .cannotWatch(path, errno): "cannot watch \(path): \(Self.words(errno))"
    case let .cannotWriteBoundaryLog(path, errno): "cannot write the boundary log \(path): \(Self.words(errno))"
    case let .cannotLock(path, errno): "cannot lock \(path): \(Self.words(errno))"
    case let .noLog(app, directory): "there is no log of \(app) in \(directory): it was never up here"
    case let .alreadyUp(app, pid, controlSocket, runFile):
      "\(app) is already up: host pid \(pid), control socket \(controlSocket), run file \(runFile) "
        + "(\"./compose.sh down \(app)\" takes it down)"
    case let .nothingPlaced(app):
      "up needs a placement that puts a boundary in a worker: with every boundary in the host there is nothing "
        + "to reach (\"./compose.sh run \(app) none\" runs it that way in the foreground)"
    case .noExecutable: "cannot find this executable (/proc/self/exe) to start the host with"
    case let .cannotStartHost(executable, errno): "cannot start the host \(executable): \(Self.words(errno))"
    case let .hostExited(app, status, log, logTail):
      "the host of \(app) exited (\(status)) before it was up; the end of its log \(log):\n" + logTail
    case let .hostNotUp(app, pid, readiness, log):
      "the host of \(app) (pid \(pid)) is not up after \(readiness); it goes on, its log is \(log)"
    }
  }

  private static func words(_ errno: Int32) -> String { String(cString: strerror(errno)) }
}
