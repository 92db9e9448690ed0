import Bulkhead
import BulkheadDistribution
import Foundation
internal import Transport

extension ActorListener.Limits {
  /// The environment variable that sets a detached host's read deadline, in milliseconds.
  static let deadlineVariable = "BULKHEAD_CONTROL_DEADLINE_MS"
  /// The environment variable that sets a detached host's idle deadline, in milliseconds.
  static let idleVariable = "BULKHEAD_CONTROL_IDLE_MS"
  /// The deadlines those variables may set, in milliseconds: up to an hour.
  static let allowedMilliseconds = 1...3_600_000

  /// The limits of a detached host's control socket: the standard ones, with the read
  /// deadline `BULKHEAD_CONTROL_DEADLINE_MS` sets and the idle deadline
  /// `BULKHEAD_CONTROL_IDLE_MS` sets, if they are set (a test waits less for a client that
  /// sends half a request, or nothing).
  ///
  /// ```swift
  /// let limits = try ActorListener.Limits.control(environment: ["BULKHEAD_CONTROL_DEADLINE_MS": "500"])
  /// // readDeadline 500 ms
  /// ```
  static func control(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(ControlError) -> Self {
    var limits = Self.standard
    if let deadline = try milliseconds(deadlineVariable, in: environment) { limits.readDeadline = deadline }
    if let idle = try milliseconds(idleVariable, in: environment) { limits.idleDeadline = idle }
    return limits
  }

  private static func milliseconds(
    _ variable: String, in environment: [String: String]
  ) throws(ControlError) -> Duration? {
    guard let text = environment[variable] else { return nil }
    guard let milliseconds = Int(text), allowedMilliseconds.contains(milliseconds) else {
      throw .invalidDeadline(variable: variable, value: text, allowed: allowedMilliseconds)
    }
    return .milliseconds(milliseconds)
  }
}
