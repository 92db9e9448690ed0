import Bulkhead
import BulkheadDistribution
import Foundation

/// Where a host or worker started from the command line writes: whole lines, unbuffered even
/// into a pipe, so that `compose.sh` and logs show events as they happen and lines from
/// several threads never mix.
struct HostTerminal: Sendable {
  /// The executable's name, or the command a person typed, for messages.
  let program: String
  /// Whether a front door runs this executable for a person (`compose.sh` says so in
  /// `BULKHEAD_COMMAND`, with the command typed): messages then name its commands, not this
  /// executable's flags.
  let isBehindFrontDoor: Bool

  /// The terminal of the executable at `path`, named by `command` when a front door ran it.
  init(program path: String, command: String? = nil) {
    program = command ?? URL(fileURLWithPath: path).lastPathComponent
    isBehindFrontDoor = command != nil
  }

  /// The terminal of this process, as `compose.sh` ran it (`BULKHEAD_COMMAND`) or not. The
  /// variable is cleared, so that the processes this one starts speak for themselves.
  static func ofThisProcess() -> HostTerminal {
    let command = ProcessInfo.processInfo.environment["BULKHEAD_COMMAND"].flatMap { $0.isEmpty ? nil : $0 }
    unsetenv("BULKHEAD_COMMAND")
    return HostTerminal(program: CommandLine.arguments.first ?? "host", command: command)
  }

  /// Writes `line` to standard output. A reader that went away (`host … | head`) must not
  /// stop the host before it has stopped its workers: the failed write is dropped, and the
  /// host ignores SIGPIPE.
  func say(_ line: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data("\(line)\n".utf8))
  }

  /// Writes `message` to standard error, and goes on.
  func warn(_ message: String) {
    try? FileHandle.standardError.write(contentsOf: Data("\(program): \(message)\n".utf8))
  }

  /// Writes `message` to standard error and exits with status 64, the status for a command
  /// used wrongly.
  func fail(_ message: String) -> Never {
    try? FileHandle.standardError.write(contentsOf: Data("\(program): \(message)\n".utf8))
    exit(64)
  }
}
