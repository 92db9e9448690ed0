#if canImport(Glibc)
  import Glibc
#endif

/// A listening `AF_UNIX` socket. The socket file is removed when the listener closes; a stale
/// file that nobody listens on is replaced.
///
/// ```swift
/// let listener = try UnixListener(path: directory.path(for: "counter1"))
/// let connection = try listener.accept()
/// ```
public final class UnixListener {
  public let path: String
  /// The listening descriptor; -1 once closed.
  public private(set) var descriptor: Int32

  public init(path: String, backlog: Int32 = 64) throws(TransportError) {
    var address = try SocketAddress(path: path)
    try Self.checkDirectory(of: path)
    try Self.removeStaleSocket(at: path)
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw .system("socket", path) }
    guard address.withSockaddr({ bind(descriptor, $0, $1) }) == 0 else {
      let error = errno
      Glibc.close(descriptor)
      if error == EADDRINUSE { throw .addressInUse(path) }
      throw .system(call: "bind", errno: error, context: path)
    }
    guard listen(descriptor, backlog) == 0 else {
      let error = errno
      Glibc.close(descriptor)
      unlink(path)
      throw .system(call: "listen", errno: error, context: path)
    }
    self.path = path
    self.descriptor = descriptor
  }

  deinit { close() }

  /// Waits for the next connection.
  public func accept() throws(TransportError) -> UnixSocket {
    while true {
      let connection = Glibc.accept(descriptor, nil, nil)
      if connection >= 0 {
        _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
        return UnixSocket(descriptor: connection)
      }
      if errno == EINTR || errno == ECONNABORTED { continue }
      throw .system("accept", path)
    }
  }

  /// Waits at most `milliseconds` for the next connection.
  public func accept(timeout milliseconds: Int32) throws(TransportError) -> UnixSocket {
    var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    while true {
      let ready = poll(&request, 1, milliseconds)
      if ready > 0 { return try accept() }
      if ready == 0 { throw .timedOut(path: path, milliseconds: milliseconds) }
      if errno != EINTR { throw .system("poll", path) }
    }
  }

  /// Stops listening and removes the socket file. A thread blocked in `accept` is woken.
  public func close() {
    guard descriptor >= 0 else { return }
    _ = shutdown(descriptor, Int32(SHUT_RDWR))
    _ = Glibc.close(descriptor)
    descriptor = -1
    unlink(path)
  }

  private static func checkDirectory(of path: String) throws(TransportError) {
    let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
      .joined(separator: "/")
    let target = directory.isEmpty ? "." : directory
    var info = stat()
    guard stat(target, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
      throw .directoryMissing(target)
    }
    guard access(target, W_OK | X_OK) == 0 else { throw .directoryNotWritable(target) }
  }

  private static func removeStaleSocket(at path: String) throws(TransportError) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    guard info.st_mode & S_IFMT == S_IFSOCK else { throw .addressInUse(path) }
    do {
      _ = try UnixSocket.connect(to: path)
    } catch .connectionRefused {
      unlink(path)
      return
    } catch {
      throw error
    }
    throw .addressInUse(path)
  }
}

/// A directory only this user can open, for a composition's sockets; removed with its
/// contents by `remove()`.
///
/// ```swift
/// let directory = try SocketDirectory.create()
/// defer { directory.remove() }
/// ```
public struct SocketDirectory: Sendable {
  public let path: String

  /// Creates a fresh directory with mode 0700 under `parent`.
  public static func create(under parent: String = "/tmp") throws(TransportError) -> SocketDirectory {
    var template = Array("\(parent)/bulkhead-XXXXXX".utf8CString)
    let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    guard created != nil else {
      if errno == ENOENT { throw .directoryMissing(parent) }
      if errno == EACCES { throw .directoryNotWritable(parent) }
      throw .system("mkdtemp", parent)
    }
    let path = String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard chmod(path, 0o700) == 0 else { throw .system("chmod", path) }
    return SocketDirectory(path: path)
  }

  /// Makes the directory again, mode 0700, if it was removed; refuses a path that now holds
  /// anything else.
  public func ensureExists() throws(TransportError) {
    var info = stat()
    if lstat(path, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid() else { throw .directoryNotWritable(path) }
      return
    }
    guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw .system("mkdir", path) }
  }

  /// The path of the socket called `name` in this directory.
  public func path(for name: String) -> String { "\(path)/\(name).sock" }

  /// Removes the socket files in the directory and the directory itself.
  public func remove() {
    guard let entries = opendir(path) else { return }
    while let entry = readdir(entries) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      if name != "." && name != ".." { unlink("\(path)/\(name)") }
    }
    closedir(entries)
    rmdir(path)
  }
}
