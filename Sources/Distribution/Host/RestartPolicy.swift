/// How often a boundary's workers may be restarted, like an OTP supervisor's intensity: at most
/// `maximumRestarts` within `period`. One more failure marks the boundary failed.
///
/// ```swift
/// RestartPolicy(maximumRestarts: 3, within: .seconds(10))
/// ```
public struct RestartPolicy: Sendable, Equatable, Codable {
  /// How many restarts `period` may hold.
  public let maximumRestarts: Int
  /// How far back restarts count.
  public let period: Duration

  /// At most `maximumRestarts` within `period`; give it to `Composition(restartPolicy:)`.
  ///
  /// ```swift
  /// try Composition(root: App(), placement: placement, command: command,
  ///   restartPolicy: RestartPolicy(maximumRestarts: 5, within: .seconds(60)))
  /// ```
  public init(maximumRestarts: Int, within period: Duration) {
    self.maximumRestarts = maximumRestarts
    self.period = period
  }

  /// Three restarts in ten seconds: what a composition uses unless told otherwise.
  ///
  /// ```swift
  /// RestartPolicy.standard.maximumRestarts  // 3
  /// ```
  public static let standard = RestartPolicy(maximumRestarts: 3, within: .seconds(10))

  /// Whether one more restart at `now` is allowed after the restarts at `history`, which it
  /// trims to the period.
  func allowsRestart(at now: ContinuousClock.Instant, after history: inout [ContinuousClock.Instant]) -> Bool {
    history.removeAll { now - $0 > period }
    guard history.count < maximumRestarts else { return false }
    history.append(now)
    return true
  }
}
