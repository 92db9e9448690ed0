import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The host's end of a worker's console: one Unix socket the worker has as both its standard
/// input and its standard output. A pipe goes one way, so input and output took two
/// descriptors in the host; a socket goes both ways and takes one. The host writes the
/// launch on it and reads the worker's output from it; shutting it down for writing is the
/// end of the worker's input (it exits), while its last output still comes.
///
/// The output watch reads it and, at the end of the output, closes it through `close()`: so
/// a write or a shutdown, under the same lock, never reaches a number closed and reused.
///
/// ```swift
/// let (console, workerEnd) = try WorkerConsole.make()
/// // The worker's standard input and output are `workerEnd`; the host closes its copy.
/// try console.write(Array("launch\n".utf8))
/// console.closeInput()
/// ```
final class WorkerConsole: Sendable {
  /// The host's end, -1 once closed; whether the worker's input is still open.
  private let end: Mutex<(descriptor: Int32, inputOpen: Bool)>
  /// The host's end, to read from on the output watch.
  let descriptor: Int32

  private init(_ descriptor: Int32) {
    self.descriptor = descriptor
    end = Mutex((descriptor, true))
  }

  /// A new console and the worker's end of it, which the caller gives the worker as its
  /// standard input and output and then closes. Both ends are closed in programs this
  /// process executes: the worker's is copied onto its standard streams, which keeps it open.
  static func make() throws(TransportError) -> (console: WorkerConsole, workerEnd: Int32) {
    var ends: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
      throw .system(call: "socketpair", errno: errno, context: "the standard input and output of a worker")
    }
    return (WorkerConsole(ends[0]), ends[1])
  }

  /// Writes `bytes` to the worker's standard input. A worker that already died gives EPIPE,
  /// without the SIGPIPE a pipe would raise. Under the lock: the launch, a few hundred bytes,
  /// fits in the socket's buffer, so the write never waits for the worker.
  func write(_ bytes: [UInt8]) throws(TransportError) {
    try end.withLock { end throws(TransportError) in
      guard end.descriptor >= 0, end.inputOpen else {
        throw .system(call: "send", errno: EPIPE, context: "the standard input of a worker")
      }
      var offset = 0
      while offset < bytes.count {
        let sent = bytes.withUnsafeBytes { send(end.descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
        if sent < 0 {
          if errno == EINTR { continue }
          throw .system(call: "send", errno: errno, context: "the standard input of a worker")
        }
        offset += sent
      }
    }
  }

  /// Ends the worker's input (it exits when it sees that), once; its output still comes.
  func closeInput() {
    end.withLock { end in
      guard end.descriptor >= 0, end.inputOpen else { return }
      end.inputOpen = false
      _ = shutdown(end.descriptor, Int32(SHUT_WR))
    }
  }

  /// What /proc names the host's end (`socket:[inode]`), while it is open: for a test that
  /// checks that no descriptor of the host stays open on it after the worker ended.
  var identity: String? {
    end.withLock { end in
      guard end.descriptor >= 0 else { return nil }
      var buffer = [CChar](repeating: 0, count: 64)
      let count = readlink("/proc/self/fd/\(end.descriptor)", &buffer, buffer.count - 1)
      return count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }
  }

  /// Closes the host's end, once the worker's output has reached its end.
  func close() {
    end.withLock { end in
      guard end.descriptor >= 0 else { return }
      _ = Glibc.close(end.descriptor)
      end.descriptor = -1
    }
  }
}
