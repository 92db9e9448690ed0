import Bulkhead
import BulkheadDistribution
import Foundation

/// Where a host or worker started from the command line writes: whole lines, unbuffered even
/// into a pipe, so that `compose.sh` and logs show events as they happen and lines from
/// several threads never mix.
struct HostTerminal: Sendable {
  /// The executable's name, for messages.
  let program: String

  init(program path: String) {
    program = URL(fileURLWithPath: path).lastPathComponent
  }

  /// Writes `line` to standard output. A reader that went away (`host … | head`) must not
  /// stop the host before it has stopped its workers: the failed write is dropped, and the
  /// host ignores SIGPIPE.
  func say(_ line: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data("\(line)\n".utf8))
  }

  /// Writes `message` to standard error and exits with status 64, the status for a command
  /// used wrongly.
  func fail(_ message: String) -> Never {
    try? FileHandle.standardError.write(contentsOf: Data("\(program): \(message)\n".utf8))
    exit(64)
  }
}
