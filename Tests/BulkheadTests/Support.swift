import Bulkhead
import Synchronization
import Testing

/// Collects what tests want to look at afterwards: runtime warnings, events from effects.
final class Log<Entry: Sendable>: Sendable {
  private let entries = Mutex<[Entry]>([])

  var all: [Entry] { entries.withLock { $0 } }

  func append(_ entry: Entry) {
    entries.withLock { $0.append(entry) }
  }
}

/// Runs `operation` and returns the runtime warnings it reported.
@MainActor
func warnings(during operation: () -> Void) -> [RuntimeWarning] {
  let log = Log<RuntimeWarning>()
  withRuntimeWarningHandler({ log.append($0) }, operation: operation)
  return log.all
}


/// Expects exactly one known issue whose message contains every one of `fragments`.
@MainActor
func expectFailure(containing fragments: [String], _ body: () async -> Void) async {
  await withKnownIssue {
    await body()
  } matching: { issue in
    let text = issue.comments.map(\.rawValue).joined(separator: "\n")
    return fragments.allSatisfy { text.contains($0) }
  }
}
