/// The clock effects sleep on: the continuous clock live; in tests, a `TestClock` the test
/// moves by hand.
///
/// ```swift
/// @Dependency(\.continuousClock) var clock
/// ...
/// try await clock.sleep(for: .seconds(1))
/// ```
extension DependencyValues {
  public var continuousClock: any Clock<Duration> {
    get { self[ContinuousClockKey.self] }
    set { self[ContinuousClockKey.self] = newValue }
  }
}

/// Process-local: a worker's clock is always the host's (`HostClock`), whose sleeps the host
/// runs on its own clock, overridden or not.
private enum ContinuousClockKey: ProcessLocalDependencyKey {
  static let liveValue: any Clock<Duration> = ContinuousClock()
}
