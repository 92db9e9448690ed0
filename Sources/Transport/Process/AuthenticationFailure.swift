/// Why a peer did not prove who it is, on either side of a launch: the fields say who and
/// what, `description` the words for people.
package enum AuthenticationFailure: Codable, Equatable, Sendable, CustomStringConvertible {
  /// The host answered the worker's secret with something other than a welcome.
  case notWelcomed
  /// The peer runs as user `uid`, not this process's `expected`.
  case otherUser(uid: UInt32, expected: UInt32)
  /// The peer is process `pid`, not the launched worker `expected`.
  case otherProcess(pid: Int32, expected: Int32)
  /// Process `pid` sent no hello that could be read: the error, described.
  case noHello(pid: Int32, error: String)
  /// Process `pid` did not present the launch secret.
  case wrongSecret(pid: Int32)
  /// No launch arrived on standard input within `seconds`.
  case noLaunch(seconds: Int)
  /// Standard input closed before the socket path, the secret and the brief arrived.
  case launchCutShort
  /// Standard input holds something other than a launch.
  case notALaunch
  /// Descriptor `descriptor` of a forked worker is not a connection its host handed it.
  case notHanded(descriptor: Int32, reason: String)

  package var description: String {
    switch self {
    case .notWelcomed: "the host did not welcome this worker"
    case let .otherUser(uid, expected): "peer uid \(uid) is not this user's (\(expected))"
    case let .otherProcess(pid, expected): "peer pid \(pid) is not the launched worker's (\(expected))"
    case let .noHello(pid, error): "no valid hello from pid \(pid): \(error)"
    case let .wrongSecret(pid): "pid \(pid) did not present the launch secret"
    case let .noLaunch(seconds): "no launch from a Bulkhead host arrived on standard input within \(seconds) seconds"
    case .launchCutShort: "standard input closed before the socket path, the secret and the brief arrived"
    case .notALaunch: "standard input does not hold a launch from a Bulkhead host"
    case let .notHanded(descriptor, reason):
      "descriptor \(descriptor) is not a connection from this worker's host: \(reason)"
    }
  }
}
