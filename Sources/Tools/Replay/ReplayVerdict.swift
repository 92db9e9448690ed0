import Bulkhead
import BulkheadDistribution

/// What a replay found: the recording matched, it diverged at a step, or it could not be
/// replayed at all.
///
/// ```swift
/// switch replayer.verdict {
/// case let .matched(steps): print("matched \(steps) steps")
/// case let .diverged(report): print(report)
/// case let .refused(error): print(error)
/// case nil: break
/// }
/// ```
enum ReplayVerdict: Equatable {
  /// Every recorded step came again, with the same action from the same source and the same
  /// state after it.
  case matched(steps: Int)
  /// The first step that differs: what the recording has, what the replay did, and the
  /// state diff.
  case diverged(report: String)
  /// The recording does not fit this app, or holds an action that cannot be sent again.
  case refused(RecordingError)
}
