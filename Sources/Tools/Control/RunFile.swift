import Bulkhead
import BulkheadDistribution
import Foundation
internal import Transport

/// What a detached composition leaves in the run directory while it is up, `APP.run`: the
/// host's pid, its control socket and its placement, one `key value` line each. Written
/// whole or not at all, and never over another host's.
///
/// ```swift
/// let run = RunFile(pid: getpid(), controlSocket: path, placement: "placements/timers.placement")
/// try run.publish(at: directory.runFile(of: "timers"))
/// ```
struct RunFile: Equatable, Sendable {
  var pid: Int32
  var controlSocket: String
  var placement: String

  /// Reads the run file at `path`; nil when there is none.
  static func read(at path: String) throws(DetachedError) -> RunFile? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
      guard FileManager.default.fileExists(atPath: path) else { return nil }
      throw .unreadableRunFile(path: path)
    }
    var fields: [String: String] = [:]
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: " ", maxSplits: 1)
      if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
    }
    guard let pid = fields["pid"].flatMap({ Int32($0) }), pid > 0, let control = fields["control"] else {
      throw .notARunFile(path: path)
    }
    return RunFile(pid: pid, controlSocket: control, placement: fields["placement"] ?? "")
  }

  /// Writes the file under a temporary name, then links it to `path`, which fails if a run
  /// file is there already: two hosts of one app never both believe they are the one up.
  func publish(at path: String) throws(DetachedError) {
    // One field a line: a line break in one would forge another.
    if let field = [controlSocket, placement].first(where: { $0.contains(where: \.isNewline) }) {
      throw .lineBreakInRunFile(path: path, field: field)
    }
    let temporary = "\(path).\(pid).tmp"
    let text = "pid \(pid)\ncontrol \(controlSocket)\nplacement \(placement)\n"
    guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
    else { throw .cannotWriteRunFile(path: temporary, errno: nil) }
    defer { unlink(temporary) }
    guard link(temporary, path) == 0 else {
      throw .cannotWriteRunFile(path: path, errno: errno)
    }
  }

  /// Removes the run file at `path` if it is the one host `pid` wrote, not a later host's.
  static func remove(at path: String, ifWrittenBy pid: Int32) {
    guard (try? read(at: path))??.pid == pid else { return }
    unlink(path)
  }

  /// Where the host that wrote the file stands.
  enum HostStatus: Equatable {
    /// Its process lives and its control socket takes a connection.
    case up
    /// Its process is gone (even a SIGKILL leaves the file behind), or the pid now names a
    /// process that is not this app's detached host.
    case gone
    /// Its process lives, but its control socket refuses connections, with this error: the
    /// file is kept.
    case unreachable(TransportError)
  }

  /// Where the host of `app` that wrote this file stands.
  func hostStatus(app: String) -> HostStatus {
    guard ProcessState(of: pid)?.isAlive == true, Self.isDetachedHost(pid, of: app) else { return .gone }
    do {
      try UnixSocket.connect(to: controlSocket).close()
      return .up
    } catch {
      return .unreachable(error)
    }
  }

  /// Whether process `pid` runs as the detached host of `app` (`--app APP --up`), so that a
  /// pid the system gave to another process since is not taken for the host.
  private static func isDetachedHost(_ pid: Int32, of app: String) -> Bool {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
    let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    guard arguments.contains("--up"), let index = arguments.firstIndex(of: "--app") else { return false }
    return arguments.indices.contains(index + 1) && arguments[index + 1] == app
  }

  /// Removes the run file at `path`, written by a host that is gone, and the socket directory
  /// that host left; says what it removed.
  func removeStale(at path: String) -> String {
    unlink(path)
    let sockets = (controlSocket as NSString).deletingLastPathComponent
    let swept = SocketDirectory.sweepStale(under: (sockets as NSString).deletingLastPathComponent).contains(sockets)
    return "its run file \(path) was stale (host pid \(pid) is gone) and is removed" + (swept ? ", with its sockets in \(sockets)" : "")
  }
}
