import Bulkhead

/// The clock a worker's effects sleep on: the host's. A sleep asks the host to sleep on its
/// own `continuousClock` — in a test, the `TestClock` the test advances — and ends when the
/// host's sleep does, so time in a worker moves with the host's.
///
/// The host sleeps for the time left, rounded to the millisecond, so that a test clock moved by
/// exactly the duration an effect asked for wakes it.
struct HostClock: Clock {
  typealias Duration = Swift.Duration
  typealias Instant = ContinuousClock.Instant

  let effects: WorkerEffects

  var now: Instant { .now }
  var minimumResolution: Duration { .milliseconds(1) }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let left = deadline - .now
    guard left >= .milliseconds(1) else { return try await effects.sleep(for: left) }
    let (seconds, attoseconds) = left.components
    let halfMillisecond: Int64 = 500_000_000_000_000
    try await effects.sleep(
      for: .milliseconds(seconds * 1_000 + (attoseconds + halfMillisecond) / (2 * halfMillisecond)))
  }
}
