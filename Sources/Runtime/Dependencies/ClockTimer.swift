/// Ticks every `interval` for as long as it is iterated, and ends when its task is cancelled:
/// the timer a reducer's effect loops over.
///
/// Each tick sleeps `interval` on the clock after the last one, rather than toward deadlines
/// on the clock's instants: a worker's clock (the host's, asked across the boundary) tells its
/// own process's time, while a test advances the host's `TestClock`, so only a sleep for a
/// duration wakes exactly on the test's ticks. Live, a tick comes late by the time the loop's
/// body took, and the next is not brought forward to make up for it.
///
/// ```swift
/// return .run { [clock] send in
///   for await _ in clock.timer(interval: .seconds(1)) { await send(.tick) }
/// }
/// .cancellable(id: CancelID.timer, cancelInFlight: true)
/// ```
public struct ClockTimer: AsyncSequence, Sendable {
  /// The tick's number: 1 for the first.
  public typealias Element = Int

  let clock: any Clock<Duration>
  let interval: Duration

  public func makeAsyncIterator() -> Iterator { Iterator(clock: clock, interval: interval) }

  /// Sleeps for the interval before each tick; nil once the task is cancelled.
  public struct Iterator: AsyncIteratorProtocol {
    let clock: any Clock<Duration>
    let interval: Duration
    var ticks = 0

    public mutating func next() async -> Int? {
      do {
        try await clock.sleep(for: interval)
      } catch {
        return nil
      }
      ticks += 1
      return ticks
    }
  }
}

extension Clock where Duration == Swift.Duration {
  /// A timer that ticks every `interval` on this clock until its task is cancelled; see
  /// `ClockTimer`.
  ///
  /// ```swift
  /// for await _ in clock.timer(interval: .seconds(1)) { await send(.tick) }
  /// ```
  public func timer(interval: Duration) -> ClockTimer { ClockTimer(clock: self, interval: interval) }
}
