#if canImport(Glibc)
  import Glibc
#endif

/// One throttled worker's account, as a value: `CPUThrottle` feeds it the worker's CPU clock
/// every tick and sends the signal it answers. A token bucket: each tick adds `tick × percent`
/// of CPU time, at most one `window`'s worth; what the worker used is taken out. Below zero the
/// worker is stopped, and continued once the bucket is back at zero or above.
///
/// ```swift
/// var bucket = ThrottleBucket(percent: 20, used: 0, tick: .milliseconds(20), window: .milliseconds(100))
/// bucket.tick(used: 15_000_000)  // nil: 20 ms banked, 4 ms added, 15 ms used: 9 ms left
/// bucket.tick(used: 40_000_000)  // SIGSTOP: 25 ms more used, 12 ms past its share
/// ```
package struct ThrottleBucket: Sendable, Equatable {
  package let percent: Int
  /// The worker's CPU time at the last tick, in nanoseconds.
  package private(set) var used: Int64
  /// CPU time it may still use, in nanoseconds; below zero it has used more than its share.
  package private(set) var budget: Int64
  package private(set) var stopped = false
  private let allowance: Int64
  private let cap: Int64

  package init(percent: Int, used: Int64, tick: Duration, window: Duration) {
    self.percent = percent
    self.used = used
    allowance = Self.nanoseconds(tick) * Int64(percent) / 100
    cap = Self.nanoseconds(window) * Int64(percent) / 100
    budget = cap
  }

  /// A tick, the worker's CPU clock reading `now`: the signal to send it, if any.
  package mutating func tick(used now: Int64) -> Int32? {
    budget = min(cap, budget + allowance - (now - used))
    used = now
    if budget < 0, !stopped {
      stopped = true
      return SIGSTOP
    }
    if budget >= 0, stopped {
      stopped = false
      return SIGCONT
    }
    return nil
  }

  private static func nanoseconds(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
  }
}
