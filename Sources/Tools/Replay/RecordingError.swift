import Bulkhead
import BulkheadDistribution

/// A recording that cannot be replayed: the file, the line (0: the file as a whole), and what
/// is wrong with it.
///
/// ```swift
/// RecordingError(file: "run.jsonl", line: 3, reason: "\"from\" must be \"outside\" or \"effect\"")
/// // run.jsonl:3: "from" must be "outside" or "effect"
/// ```
struct RecordingError: Error, CustomStringConvertible, Equatable {
  let file: String
  let line: Int
  let reason: String

  var description: String {
    line == 0 ? "\(file): \(reason)" : "\(file):\(line): \(reason)"
  }
}
