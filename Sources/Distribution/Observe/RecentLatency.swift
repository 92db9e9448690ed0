/// The latencies of a boundary's actions over the last few seconds, wherever they ran (a round
/// trip to a worker, or the child run in the host after a move): what `top` shows, so that a
/// change — a move, a fault, a slow reply — shows within seconds instead of drowning in the
/// totals since the start.
///
/// ```swift
/// var recent = RecentLatency()
/// recent.record(42_000, at: .now)
/// recent.window(at: .now).percentile(0.5)  // 42 µs, give or take a bucket
/// ```
package struct RecentLatency: Sendable, Equatable {
  /// How many seconds the window spans, the current one included.
  package static let seconds: UInt64 = 5

  /// One histogram per second of the window, in a ring, each with the second it holds.
  private var histograms = [LogHistogram](repeating: LogHistogram(), count: Int(seconds))
  private var stamps = [UInt64?](repeating: nil, count: Int(seconds))

  package init() {}

  /// Adds `nanoseconds`, for an action that ended at `instant`. One from a second the ring
  /// has passed is left out.
  package mutating func record(_ nanoseconds: UInt64, at instant: MonotonicInstant) {
    let second = instant.nanoseconds / 1_000_000_000
    let slot = Int(second % Self.seconds)
    if let stamp = stamps[slot], stamp > second { return }
    if stamps[slot] != second {
      histograms[slot] = LogHistogram()
      stamps[slot] = second
    }
    histograms[slot].record(nanoseconds)
  }

  /// Every value recorded in the `seconds` up to `instant`.
  package func window(at instant: MonotonicInstant) -> LogHistogram {
    let now = instant.nanoseconds / 1_000_000_000
    var window = LogHistogram()
    for (histogram, stamp) in zip(histograms, stamps) {
      guard let stamp, stamp <= now, now - stamp < Self.seconds else { continue }
      window.add(histogram)
    }
    return window
  }
}
