import Synchronization

/// A clock whose time moves only when a test says so, letting tests drive timers without
/// waiting for them.
///
/// Advancing steps through every deadline on the way, in order: the effects woken at one
/// instant run — send their actions, sleep again — before time moves on, so a one-second
/// timer advanced by three seconds ticks three times. The clock waits for effects that run on
/// a `TestStore`'s executor (it knows when they have settled); a sleep from anywhere else is
/// woken, but not waited for.
///
/// ```swift
/// let clock = TestClock()
/// let store = TestStore(initialState: Timer.State()) { Timer() } withDependencies: {
///   $0.continuousClock = clock
/// }
/// await store.send(.startButtonTapped) { $0.isRunning = true }
/// await clock.advance(by: .seconds(1))
/// await store.receive(.timerTicked) { $0.secondsElapsed = 1 }
/// ```
public final class TestClock: Clock, Sendable {
  /// A point in the test clock's time: an offset from its start.
  ///
  /// ```swift
  /// let deadline = clock.now.advanced(by: .seconds(1))
  /// ```
  public struct Instant: InstantProtocol {
    let offset: Duration

    /// The instant `offset` after the clock's start.
    public init(offset: Duration = .zero) { self.offset = offset }

    public func advanced(by duration: Duration) -> Self { Self(offset: offset + duration) }
    public func duration(to other: Self) -> Duration { other.offset - offset }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }
  }

  private struct Sleeper {
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
    /// Where the sleeping effect runs, when a test store's executor runs it.
    let executor: EffectExecutor?
  }

  private struct Timeline {
    var now = Instant()
    var nextID = 0
    var sleepers: [Int: Sleeper] = [:]

    /// Removes and returns the sleepers of the earliest deadline not after `limit` (if
    /// any), in the order they began, moving time to that deadline; nil when none is due.
    mutating func wakeEarliest(notAfter limit: Instant?) -> [Sleeper]? {
      guard let earliest = sleepers.values.map(\.deadline).min(), limit.map({ earliest <= $0 }) ?? true
      else { return nil }
      now = max(now, earliest)
      let due = sleepers.filter { $0.value.deadline == earliest }.sorted { $0.key < $1.key }
      for (id, _) in due { sleepers[id] = nil }
      return due.map(\.value)
    }
  }

  private let timeline = Mutex(Timeline())

  /// A clock whose time starts at `now`.
  ///
  /// ```swift
  /// let clock = TestClock()
  /// ```
  public init(now: Instant = Instant()) {
    timeline.withLock { $0.now = now }
  }

  /// The clock's current time; it moves only when advanced.
  ///
  /// ```swift
  /// #expect(clock.now == TestClock.Instant(offset: .seconds(2)))
  /// ```
  public var now: Instant { timeline.withLock { $0.now } }

  /// Zero: the test clock wakes each sleep exactly at its deadline.
  public var minimumResolution: Duration { .zero }

  /// How many sleeps are waiting for the clock to move.
  ///
  /// ```swift
  /// #expect(clock.sleeperCount == 1)
  /// ```
  public var sleeperCount: Int { timeline.withLock { $0.sleepers.count } }

  /// Suspends until the clock is advanced to `deadline`, or throws `CancellationError` when
  /// the task is cancelled first.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let executor = EffectExecutor.current
    let id = timeline.withLock { timeline -> Int in
      timeline.nextID += 1
      return timeline.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let resumeNow = timeline.withLock { timeline -> Bool in
          guard deadline > timeline.now, !Task.isCancelled else { return true }
          timeline.sleepers[id] = Sleeper(
            deadline: deadline, continuation: continuation, executor: executor)
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

  /// Moves time forward by `duration`, one deadline at a time: the sleeps due at each instant
  /// wake in the order they began, and what they do next (send actions, sleep again) settles
  /// before time moves on.
  ///
  /// ```swift
  /// await store.send(.startTimer)
  /// await clock.advance(by: .seconds(2))
  /// await store.receive(.tick) { $0.ticks = 1 }
  /// await store.receive(.tick) { $0.ticks = 2 }
  /// ```
  public func advance(by duration: Duration = .zero) async {
    await advance(to: now.advanced(by: duration))
  }

  /// Moves time forward to `deadline`, one deadline at a time, as `advance(by:)` does.
  ///
  /// ```swift
  /// await clock.advance(to: clock.now.advanced(by: .seconds(1)))
  /// ```
  public func advance(to deadline: Instant) async {
    while let woken = timeline.withLock({ $0.wakeEarliest(notAfter: deadline) }) {
      await wake(woken)
    }
    timeline.withLock { $0.now = max($0.now, deadline) }
  }

  /// Advances until no sleep is left, one deadline at a time; gives up after `timeout` of
  /// real time (a timer that never stops), and returns whether every sleep was woken.
  ///
  /// ```swift
  /// await store.send(.load)
  /// await clock.run()
  /// await store.receive(.loaded) { $0.isLoading = false }
  /// ```
  @discardableResult
  public func run(timeout: Duration = .seconds(5)) async -> Bool {
    let limit = ContinuousClock.now.advanced(by: timeout)
    while let woken = timeline.withLock({ $0.wakeEarliest(notAfter: nil) }) {
      await wake(woken)
      if ContinuousClock.now >= limit { return sleeperCount == 0 }
    }
    return true
  }

  /// Resumes `sleepers` and waits until the executors they run on have settled.
  private func wake(_ sleepers: [Sleeper]) async {
    for sleeper in sleepers { sleeper.continuation.resume() }
    var waited: [ObjectIdentifier] = []
    for case let executor? in sleepers.map(\.executor)
    where !waited.contains(ObjectIdentifier(executor)) {
      waited.append(ObjectIdentifier(executor))
      await executor.waitUntilSettled()
    }
  }
}
