#if canImport(Glibc)
  import Glibc
#endif

/// What can go wrong below the reducers: sockets, frames, codec, worker processes. Each case
/// says what happened and where, so the message can be shown to a user as it is.
package enum TransportError: CodableError, Equatable, CustomStringConvertible {
  /// A socket path longer than the kernel's `sun_path` allows.
  case pathTooLong(path: String, length: Int, limit: Int)
  /// The directory that should hold a socket does not exist.
  case directoryMissing(String)
  /// The directory that should hold a socket cannot be written.
  case directoryNotWritable(String)
  /// Another process is listening on the socket path.
  case addressInUse(String)
  /// Nothing listens on the socket path.
  case connectionRefused(String)
  /// A frame announced more payload than the connection accepts.
  case frameTooLarge(length: Int, limit: Int)
  /// The peer closed the connection in the middle of a frame.
  case truncatedFrame(received: Int, expected: Int)
  /// The bytes do not decode as the expected value.
  case malformed(String)
  /// A peer failed to prove who it is.
  case authenticationFailed(AuthenticationFailure)
  /// Nothing happened on the socket at `path` within the time allowed.
  case timedOut(path: String, milliseconds: Int32)
  /// A launched process exited before it connected.
  case processExited(name: String, pid: Int32)
  /// A system call failed.
  case system(call: String, errno: Int32, context: String)

  package var description: String {
    switch self {
    case let .pathTooLong(path, length, limit):
      "The socket path \"\(path)\" is \(length) bytes long; Unix sockets allow at most \(limit). Use a shorter directory (for example under /tmp)."
    case let .directoryMissing(path):
      "The socket directory \"\(path)\" does not exist."
    case let .directoryNotWritable(path):
      "The socket directory \"\(path)\" is not writable by this user."
    case let .addressInUse(path):
      "Another process is already listening on \"\(path)\"."
    case let .connectionRefused(path):
      "Nothing is listening on \"\(path)\" (connection refused)."
    case let .frameTooLarge(length, limit):
      "A frame announced \(length) bytes of payload; the limit is \(limit). The connection was dropped."
    case let .truncatedFrame(received, expected):
      "The peer closed the connection after \(received) of \(expected) bytes of a frame."
    case let .malformed(reason):
      "Malformed data: \(reason)"
    case let .authenticationFailed(reason):
      "Peer authentication failed: \(reason)"
    case let .timedOut(path, milliseconds):
      "Nothing came on \"\(path)\" within \(milliseconds) ms: no peer connected, or it sent nothing."
    case let .processExited(name, pid):
      "The process \(name) (pid \(pid)) exited before it connected; its own output says why."
    case let .system(call, errno, context):
      "\(call) failed for \(context): \(String(cString: strerror(errno))) (errno \(errno))"
    }
  }

  static func system(_ call: String, _ context: String) -> TransportError {
    .system(call: call, errno: errno, context: context)
  }
}
