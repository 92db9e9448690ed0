import Bulkhead
import BulkheadDistribution
import Foundation

/// The log a detached composition keeps of its boundaries, `APP.boundaries.log` in the run
/// directory: each line a worker writes and each event of a boundary, labelled with the
/// boundary's name and the worker's index in its pool, which `./compose.sh logs` reads.
///
/// ```text
/// timers[1] stdout: tick
/// timers event: worker 4714 (timers) is gone
/// ```
final class BoundaryLog: Sendable {
  private let descriptor: Int32

  /// Starts the log at `path` afresh.
  init(path: String) throws(DetachedError) {
    descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw .cannotWriteBoundaryLog(path: path, errno: errno)
    }
  }

  deinit { close(descriptor) }

  func record(_ output: WorkerOutput) {
    append("\(output.boundary)[\(Self.index(of: output.worker))] \(output.stream.rawValue): \(output.text)")
  }

  func record(_ event: BoundaryEvent) {
    append("\(event.boundary) event: \(event)")
  }

  /// Whether `line` of the log is about `boundary`.
  static func line(_ line: Substring, isAbout boundary: String) -> Bool {
    guard line.hasPrefix(boundary) else { return false }
    let next = line.dropFirst(boundary.count).first
    return next == "[" || next == " "
  }

  /// A worker's index in its pool, from its name in the composition (`w0-1`: 1).
  private static func index(of worker: String) -> Substring {
    worker.split(separator: "-").last ?? Substring(worker)
  }

  /// One line, written at once: lines from several threads never mix (`O_APPEND`).
  private func append(_ line: String) {
    let bytes = Array("\(line)\n".utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
  }
}
