import Bulkhead
import BulkheadDistribution
import Foundation

/// Where detached compositions (`./compose.sh up`) leave their run files and logs:
/// `${XDG_RUNTIME_DIR:-/tmp}/bulkhead-UID`, a directory of this user's that only this user
/// may open (mode 0700), so that nobody else can plant or read a run file there.
///
/// ```swift
/// let directory = try RunDirectory.open(creating: true)
/// let run = try RunFile.read(at: directory.runFile(of: "timers"))
/// ```
struct RunDirectory: Sendable {
  let path: String

  /// The directory's path for this user and environment.
  static func location(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    let base = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    return "\(base)/bulkhead-\(getuid())"
  }

  /// The run directory, made with mode 0700 if `creating` and missing. Refuses one that is a
  /// link, not this user's, or open to others.
  static func open(creating: Bool, at path: String = location()) throws(DetachedError) -> RunDirectory {
    if creating, mkdir(path, 0o700) != 0, errno != EEXIST {
      throw .cannotMakeRunDirectory(path: path, errno: errno)
    }
    var info = stat()
    guard lstat(path, &info) == 0 else {
      throw .noRunDirectory(path: path)
    }
    guard info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid(), info.st_mode & 0o077 == 0 else {
      throw .runDirectoryNotPrivate(path: path, mode: info.st_mode & 0o7777, owner: info.st_uid)
    }
    return RunDirectory(path: path)
  }

  /// The run file of `app`'s composition while it is up.
  func runFile(of app: String) -> String { "\(path)/\(app).run" }

  /// Takes the lock of `app`'s launches (`APP.lock`, an exclusive `flock`), waiting while
  /// another process holds it; closing the returned descriptor lets it go.
  func lock(_ app: String) throws(DetachedError) -> Int32 {
    let path = "\(self.path)/\(app).lock"
    let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw .cannotLock(path: path, errno: errno) }
    while flock(descriptor, LOCK_EX) != 0 {
      guard errno == EINTR else {
        let error = errno
        close(descriptor)
        throw .cannotLock(path: path, errno: error)
      }
    }
    return descriptor
  }

  /// The apps that have a run file here, up or left by a host that is gone, by name.
  var appsWithRunFiles: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    return names.filter { $0.hasSuffix(".run") }.map { String($0.dropLast(4)) }.sorted()
  }

  /// What the host of `app` writes: its standard output and error.
  func hostLog(of app: String) -> String { "\(path)/\(app).log" }

  /// The output of `app`'s workers and the events of its boundaries, one labelled line each.
  func boundaryLog(of app: String) -> String { "\(path)/\(app).boundaries.log" }
}
