import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A connected `AF_UNIX` stream socket. Reads and writes block the calling thread, which is
/// what the hot path wants: no thread hop between a request and its reply.
///
/// ```swift
/// let socket = try UnixSocket.connect(to: "/tmp/bulkhead-1234/worker.sock")
/// try socket.write(bytes)
/// ```
package final class UnixSocket {
  /// The file descriptor; -1 once closed.
  package private(set) var descriptor: Int32
  /// Shuts this socket down from any thread; see `SocketShutdown`.
  package let shutdownHandle: SocketShutdown
  /// The send timeout set by `setSendTimeout(milliseconds:)`, if any.
  package private(set) var sendTimeout: Int32?

  init(descriptor: Int32) {
    self.descriptor = descriptor
    self.shutdownHandle = SocketShutdown(descriptor: descriptor)
  }

  deinit { close() }

  /// Connects to the socket listening at `path`.
  package static func connect(to path: String) throws(TransportError) -> UnixSocket {
    var address = try SocketAddress(path: path)
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw .system("socket", path) }
    let socket = UnixSocket(descriptor: descriptor)
    let result = address.withSockaddr { Glibc.connect(descriptor, $0, $1) }
    guard result == 0 else {
      if errno == ECONNREFUSED || errno == ENOENT { throw .connectionRefused(path) }
      throw .system("connect", path)
    }
    return socket
  }

  /// A connected pair of sockets in this process, for benchmarks and tests.
  package static func pair() throws(TransportError) -> (UnixSocket, UnixSocket) {
    var descriptors: [Int32] = [0, 0]
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    guard socketpair(AF_UNIX, type, 0, &descriptors) == 0 else {
      throw .system("socketpair", "a socket pair")
    }
    return (UnixSocket(descriptor: descriptors[0]), UnixSocket(descriptor: descriptors[1]))
  }

  /// Makes a write that can send nothing for `milliseconds` (the peer reads nothing, its
  /// buffer is full) fail with `TransportError.timedOut` instead of blocking for ever. nil
  /// waits for ever again.
  package func setSendTimeout(milliseconds: Int32?) throws(TransportError) {
    let value = max(0, milliseconds ?? 0)
    var limit = timeval(tv_sec: Int(value / 1000), tv_usec: Int(value % 1000) * 1000)
    guard setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
      throw .system("setsockopt(SO_SNDTIMEO)", "socket \(descriptor)")
    }
    sendTimeout = value > 0 ? value : nil
  }

  /// Writes all of `bytes`, looping over partial writes. With a send timeout, fails with
  /// `TransportError.timedOut` when the peer takes nothing for that long; part of `bytes`
  /// may have gone by then, so the stream is no longer whole: drop the connection.
  package func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
    var offset = 0
    while offset < bytes.count {
      let written = send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
      if written < 0 {
        if errno == EINTR { continue }
        if (errno == EAGAIN || errno == EWOULDBLOCK), let sendTimeout {
          throw .timedOut(path: "socket \(descriptor)", milliseconds: sendTimeout)
        }
        throw .system("send", "socket \(descriptor)")
      }
      offset += written
    }
  }

  /// Reads up to `buffer.count` bytes; returns 0 at end of stream. Throws
  /// `TransportError.timedOut` when a receive timeout (`SO_RCVTIMEO`) expires.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> Int {
    while true {
      let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
      if count >= 0 { return count }
      if errno == EINTR { continue }
      if errno == ECONNRESET { return 0 }
      if errno == EAGAIN || errno == EWOULDBLOCK { throw .timedOut(path: "socket \(descriptor)", milliseconds: 0) }
      throw .system("recv", "socket \(descriptor)")
    }
  }

  /// The user and process on the other end, as the kernel saw them connect.
  package func peerCredentials() throws(TransportError) -> PeerCredentials {
    // `struct ucred` (pid, uid, gid), which Glibc only declares under _GNU_SOURCE.
    var credentials: (pid: pid_t, uid: uid_t, gid: gid_t) = (0, 0, 0)
    var length = socklen_t(MemoryLayout.size(ofValue: credentials))
    guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
      throw .system("getsockopt(SO_PEERCRED)", "socket \(descriptor)")
    }
    return PeerCredentials(pid: credentials.pid, uid: credentials.uid)
  }

  /// Stops further reads and writes; the peer sees end of stream, and a thread blocked
  /// reading or writing this socket returns. Safe from any thread (see `SocketShutdown`).
  package func shutdown() { shutdownHandle.shutdown() }

  package func close() {
    guard descriptor >= 0 else { return }
    shutdownHandle.close()
    descriptor = -1
  }
}

/// Shuts a socket down from any thread, while another thread is blocked reading or writing
/// it, without racing its close.
///
/// `shutdown(2)` on a descriptor is safe from any thread, as long as the descriptor is not
/// closed meanwhile: if it were, its number could be reused by an unrelated file that the
/// shutdown would then hit. Here the descriptor is closed only through this object, and
/// `shutdown()` and `close()` run under one lock: a shutdown acts on the still-open socket,
/// or, once it is closed, does nothing. Neither call blocks (no SO_LINGER), so holding the
/// lock across them is cheap; it is never held while reading or writing.
package final class SocketShutdown: Sendable {
  /// The descriptor while it is open; -1 once closed.
  private let descriptor: Mutex<Int32>

  init(descriptor: Int32) { self.descriptor = Mutex(descriptor) }

  /// Shuts the socket down in both directions, if it is still open.
  package func shutdown() {
    descriptor.withLock { descriptor in
      if descriptor >= 0 { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
    }
  }

  func close() {
    descriptor.withLock { descriptor in
      if descriptor >= 0 { _ = Glibc.close(descriptor) }
      descriptor = -1
    }
  }
}

/// Who is on the other end of a Unix socket.
package struct PeerCredentials: Equatable, Sendable {
  package let pid: pid_t
  package let uid: uid_t
}

/// A `sockaddr_un` for a filesystem path, checked against the kernel's length limit.
struct SocketAddress {
  private var storage = sockaddr_un()

  static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

  init(path: String) throws(TransportError) {
    let bytes = Array(path.utf8)
    guard bytes.count <= Self.maximumPathLength else {
      throw .pathTooLong(path: path, length: bytes.count, limit: Self.maximumPathLength)
    }
    storage.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &storage.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
  }

  mutating func withSockaddr<Result>(
    _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
  ) -> Result {
    withUnsafePointer(to: &storage) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
  }
}
