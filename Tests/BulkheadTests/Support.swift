import Bulkhead
import Synchronization

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

