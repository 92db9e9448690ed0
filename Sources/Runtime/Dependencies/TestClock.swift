import Synchronization

/// A clock whose time moves only when a test says so, letting tests drive timers without
/// waiting for them.
///
/// ```swift
/// let clock = TestClock()
/// let store = TestStore(initialState: Timer.State()) { Timer() } withDependencies: {
///   $0.continuousClock = clock
/// }
/// await store.send(.startButtonTapped) { $0.isRunning = true }
/// clock.advance(by: .seconds(1))
/// await store.receive(.timerTicked) { $0.secondsElapsed = 1 }
/// ```
public final class TestClock: Clock, Sendable {
  public struct Instant: InstantProtocol {
    let offset: Duration

    public init(offset: Duration = .zero) { self.offset = offset }

    public func advanced(by duration: Duration) -> Self { Self(offset: offset + duration) }
    public func duration(to other: Self) -> Duration { other.offset - offset }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }
  }

  private struct Sleeper {
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct Timeline {
    var now = Instant()
    var nextID = 0
    var sleepers: [Int: Sleeper] = [:]
  }

  private let timeline = Mutex(Timeline())

  public init(now: Instant = Instant()) {
    timeline.withLock { $0.now = now }
  }

  public var now: Instant { timeline.withLock { $0.now } }
  public var minimumResolution: Duration { .zero }

  /// How many sleeps are waiting for the clock to move.
  public var sleeperCount: Int { timeline.withLock { $0.sleepers.count } }

  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let id = timeline.withLock { timeline -> Int in
      timeline.nextID += 1
      return timeline.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let resumeNow = timeline.withLock { timeline -> Bool in
          guard deadline > timeline.now, !Task.isCancelled else { return true }
          timeline.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
          return false
        }
        if resumeNow {
          Task.isCancelled
            ? continuation.resume(throwing: CancellationError()) : continuation.resume()
        }
      }
    } onCancel: {
      timeline.withLock { $0.sleepers.removeValue(forKey: id) }?
        .continuation.resume(throwing: CancellationError())
    }
  }

  /// Moves time forward by `duration`, waking every sleep whose deadline has come: earliest
  /// deadline first, and in the order they began among equal deadlines.
  public func advance(by duration: Duration = .zero) {
    let woken = timeline.withLock { timeline -> [Sleeper] in
      timeline.now = timeline.now.advanced(by: duration)
      let due = timeline.sleepers.filter { $0.value.deadline <= timeline.now }
        .sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
      for (id, _) in due { timeline.sleepers.removeValue(forKey: id) }
      return due.map(\.value)
    }
    for sleeper in woken { sleeper.continuation.resume() }
  }

  /// Moves time to the last deadline anyone is sleeping until, waking them all.
  public func run() {
    let last = timeline.withLock { timeline in
      timeline.sleepers.values.map(\.deadline).max() ?? timeline.now
    }
    advance(by: now.duration(to: last))
  }
}
