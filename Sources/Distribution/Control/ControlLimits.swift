import Foundation
internal import Transport

extension ActorListener.Limits {
  /// The environment variable that sets a detached host's read deadline, in milliseconds.
  static let deadlineVariable = "BULKHEAD_CONTROL_DEADLINE_MS"

  /// The limits of a detached host's control socket: the standard ones, with the read
  /// deadline `BULKHEAD_CONTROL_DEADLINE_MS` sets, if it is set (a test waits less for a
  /// client that sends half a request).
  ///
  /// ```swift
  /// let limits = try ActorListener.Limits.control(environment: ["BULKHEAD_CONTROL_DEADLINE_MS": "500"])
  /// // readDeadline 500 ms
  /// ```
  static func control(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(DistributionError) -> Self {
    var limits = Self.standard
    guard let text = environment[deadlineVariable] else { return limits }
    guard let milliseconds = Int(text), (1...3_600_000).contains(milliseconds) else {
      throw .usage("\(deadlineVariable) must be a whole number of milliseconds from 1 to 3600000; got \"\(text)\"")
    }
    limits.readDeadline = .milliseconds(milliseconds)
    return limits
  }
}
