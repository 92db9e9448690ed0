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
  static func read(at path: String) throws(DistributionError) -> RunFile? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
      guard FileManager.default.fileExists(atPath: path) else { return nil }
      throw .usage("cannot read the run file \(path)")
    }
    var fields: [String: String] = [:]
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: " ", maxSplits: 1)
      if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
    }
    guard let pid = fields["pid"].flatMap({ Int32($0) }), pid > 0, let control = fields["control"] else {
      throw .usage("the run file \(path) was not written by a host (no pid or control line); remove it")
    }
    return RunFile(pid: pid, controlSocket: control, placement: fields["placement"] ?? "")
  }

  /// Writes the file under a temporary name, then links it to `path`, which fails if a run
  /// file is there already: two hosts of one app never both believe they are the one up.
  func publish(at path: String) throws(DistributionError) {
    let temporary = "\(path).\(pid).tmp"
    let text = "pid \(pid)\ncontrol \(controlSocket)\nplacement \(placement)\n"
    guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
    else { throw .usage("cannot write the run file \(temporary)") }
    defer { unlink(temporary) }
    guard link(temporary, path) == 0 else {
      let reason = errno == EEXIST ? "another host wrote one first" : String(cString: strerror(errno))
      throw .usage("cannot write the run file \(path): \(reason)")
    }
  }

  /// Removes the run file at `path` if it is the one host `pid` wrote, not a later host's.
  static func remove(at path: String, ifWrittenBy pid: Int32) {
    guard (try? read(at: path))??.pid == pid else { return }
    unlink(path)
  }

  /// Whether the host is up: its process lives and its control socket takes a connection.
  /// A host that died (even by SIGKILL, which leaves the file behind) fails one or the other.
  var hostIsUp: Bool {
    guard ProcessState(of: pid)?.isAlive == true, let socket = try? UnixSocket.connect(to: controlSocket) else {
      return false
    }
    socket.close()
    return true
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
