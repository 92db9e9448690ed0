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

/// A seeded random number generator (SplitMix64), so a randomized test fails the same way
/// every time for the same seed.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
