import Bulkhead
import Synchronization

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

/// One sleep a worker asked of the host: ends when the host wakes it or it is cancelled,
/// whichever comes first, and only once.
final class PendingSleep: Sendable {
  private struct State {
    var continuation: CheckedContinuation<Void, any Error>?
    var outcome: Result<Void, any Error>?
  }

  private let state = Mutex(State())

  /// Waits until `end`; `start` runs once the sleep can be woken.
  func wait(then start: () -> Void) async throws {
    try await withCheckedThrowingContinuation { continuation in
      let outcome = state.withLock { state -> Result<Void, any Error>? in
        if state.outcome == nil { state.continuation = continuation }
        return state.outcome
      }
      if let outcome { return continuation.resume(with: outcome) }
      start()
    }
  }

  /// Ends the sleep: woken when `error` is nil.
  func end(throwing error: (any Error)?) {
    let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
      guard state.outcome == nil else { return nil }
      state.outcome = error.map { .failure($0) } ?? .success(())
      defer { state.continuation = nil }
      return state.continuation
    }
    if let error { continuation?.resume(throwing: error) } else { continuation?.resume() }
  }
}
