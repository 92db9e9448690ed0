import Bulkhead
import BulkheadDistribution
import Synchronization

/// The clock a replay's effects sleep on — in the host, and in workers, whose sleeps the host
/// runs on its own clock. Its time moves only when the replay wakes a sleep that a recorded
/// effect action may be waiting for, one sleep at a time, so timers fire in the recorded
/// order however fast the replay runs. It tells the replay each time an effect starts
/// sleeping.
///
/// ```swift
/// let clock = ReplayClock()
/// clock.onSleep { print("an effect sleeps") }
/// clock.wakeNext(notAfter: TestClock.Instant(offset: .seconds(2)))
/// ```
final class ReplayClock: Clock, Sendable {
  typealias Duration = Swift.Duration
  typealias Instant = TestClock.Instant

  private struct Sleeper {
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct Timeline {
    var now = Instant()
    var nextID = 0
    var sleepers: [Int: Sleeper] = [:]

    /// Keeps `sleeper` until it is woken; false, and nothing kept, when it is due already.
    mutating func keep(_ sleeper: Sleeper, as id: Int) -> Bool {
      guard sleeper.deadline > now else { return false }
      sleepers[id] = sleeper
      return true
    }
  }

  private let timeline = Mutex(Timeline())
  private let startedSleeping = Mutex<@Sendable () -> Void>({})

  /// Calls `notify` after each sleep begins waiting.
  func onSleep(_ notify: @escaping @Sendable () -> Void) {
    startedSleeping.withLock { $0 = notify }
  }

  var now: Instant { timeline.withLock { $0.now } }
  var minimumResolution: Duration { .zero }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let id = timeline.withLock { timeline -> Int in
      timeline.nextID += 1
      return timeline.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        // Checked under the lock with the keeping: a cancellation just before finds nothing kept.
        let kept = timeline.withLock { Task.isCancelled ? false : $0.keep(Sleeper(deadline: deadline, continuation: continuation), as: id) }
        guard kept else { return continuation.resume(with: Task.isCancelled ? .failure(CancellationError()) : .success(())) }
        startedSleeping.withLock { $0 }()
      }
    } onCancel: {
      timeline.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Wakes the sleep due first, if it is due by `limit`, moving time to its deadline; of
  /// sleeps due at one instant, the one that began first. False when none is due.
  @discardableResult
  func wakeNext(notAfter limit: Instant) -> Bool {
    let woken = timeline.withLock { timeline -> Sleeper? in
      guard let (id, sleeper) = timeline.sleepers.min(by: { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }),
        sleeper.deadline <= limit
      else { return nil }
      timeline.sleepers[id] = nil
      timeline.now = max(timeline.now, sleeper.deadline)
      return sleeper
    }
    woken?.continuation.resume()
    return woken != nil
  }
}
