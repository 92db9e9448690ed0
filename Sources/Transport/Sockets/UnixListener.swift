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
package final class UnixListener {
  package let path: String
  /// The listening descriptor; -1 once closed.
  package private(set) var descriptor: Int32

  package init(path: String, backlog: Int32 = 64) throws(TransportError) {
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
  package func accept() throws(TransportError) -> UnixSocket {
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
  package func accept(timeout milliseconds: Int32) throws(TransportError) -> UnixSocket {
    var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    while true {
      let ready = poll(&request, 1, milliseconds)
      if ready > 0 { return try accept() }
      if ready == 0 { throw .timedOut(path: path, milliseconds: milliseconds) }
      if errno != EINTR { throw .system("poll", path) }
    }
  }

  /// Stops listening and removes the socket file. A thread blocked in `accept` is woken.
  package func close() {
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
/// Its name carries the pid of the host that made it, `bulkhead-<pid>-XXXXXX`, so that the
/// directory of a host that died without cleaning up (killed with SIGKILL) can be told from
/// a live one and swept: `create()` sweeps those it finds.
///
/// ```swift
/// let directory = try SocketDirectory.create()
/// defer { directory.remove() }
/// ```
package struct SocketDirectory: Sendable {
  package let path: String

  /// The prefix of every socket directory's name.
  package static let namePrefix = "bulkhead-"

  /// Creates a fresh directory with mode 0700 under `parent`, named for this process, after
  /// sweeping the directories of dead hosts there.
  package static func create(under parent: String = "/tmp") throws(TransportError) -> SocketDirectory {
    sweepStale(under: parent)
    var template = Array("\(parent)/\(namePrefix)\(getpid())-XXXXXX".utf8CString)
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

  /// The host pid in a socket directory's name, if the name is exactly
  /// `bulkhead-<pid>-XXXXXX`: a positive decimal pid without leading zeros, and six letters or
  /// digits as `mkdtemp` makes them.
  package static func hostPID(inName name: String) -> pid_t? {
    guard name.hasPrefix(namePrefix) else { return nil }
    let rest = name.utf8.dropFirst(namePrefix.utf8.count)
    guard let dash = rest.firstIndex(of: UInt8(ascii: "-")) else { return nil }
    let digits = rest[rest.startIndex..<dash]
    let suffix = rest[rest.index(after: dash)...]
    guard (1...10).contains(digits.count), digits.first != UInt8(ascii: "0"),
      digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
      suffix.count == 6,
      suffix.allSatisfy({ byte in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
      }),
      let pid = Int32(String(decoding: digits, as: UTF8.self)), pid > 0
    else { return nil }
    return pid
  }

  /// Removes the socket directories under `parent` whose host is dead, and returns their
  /// paths. A directory is removed only if its name is exactly `bulkhead-<pid>-XXXXXX`, it is
  /// a directory itself (not a symbolic link: `lstat`), this user owns it, and no process
  /// `pid` exists (`kill(pid, 0)` fails with ESRCH) or it has exited and waits to be reaped. Inside it, only what is not a directory
  /// is removed (socket files); links are removed, never followed. A directory that still
  /// holds something else stays.
  ///
  /// Pids are this pid namespace's: a host in another namespace sharing `parent` would look
  /// dead. A dead host's pid taken by a new process keeps the directory until that one ends.
  @discardableResult
  package static func sweepStale(under parent: String = "/tmp") -> [String] {
    guard let entries = opendir(parent) else { return [] }
    defer { closedir(entries) }
    let parentDescriptor = dirfd(entries)
    var removed: [String] = []
    while let entry = readdir(entries) {
      let name = entryName(entry)
      guard let pid = hostPID(inName: name) else { continue }
      var info = stat()
      guard fstatat(parentDescriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0,
        info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid()
      else { continue }
      guard kill(pid, 0) == -1 && errno == ESRCH || isZombie(pid) else { continue }
      if removeTree(named: name, in: parentDescriptor, device: info.st_dev, inode: info.st_ino) {
        removed.append("\(parent)/\(name)")
      }
    }
    return removed
  }

  /// Whether `pid` has exited and waits to be reaped: a host killed with SIGKILL whose parent
  /// (often init) has not reaped it yet is dead all the same.
  private static func isZombie(_ pid: pid_t) -> Bool {
    guard let stat = fopen("/proc/\(pid)/stat", "r") else { return false }
    defer { fclose(stat) }
    var line = [CChar](repeating: 0, count: 512)
    guard fgets(&line, Int32(line.count), stat) != nil else { return false }
    let text = String(decoding: line.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let nameEnd = text.lastIndex(of: ")") else { return false }
    return text[text.index(after: nameEnd)...].dropFirst().first == "Z"
  }

  /// Empties and removes directory `name` of `parent`, if it is still the directory that was
  /// checked (same device and inode, a directory, this user's): opened without following a
  /// link, emptied with `unlinkat`, which removes a link itself and never what it points to.
  private static func removeTree(named name: String, in parent: Int32, device: dev_t, inode: ino_t) -> Bool {
    let descriptor = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else { return false }
    var info = stat()
    guard fstat(descriptor, &info) == 0, info.st_dev == device, info.st_ino == inode,
      info.st_uid == getuid(), let entries = fdopendir(descriptor)
    else {
      Glibc.close(descriptor)
      return false
    }
    while let entry = readdir(entries) {
      let child = entryName(entry)
      if child != "." && child != ".." { _ = unlinkat(descriptor, child, 0) }
    }
    closedir(entries)
    return unlinkat(parent, name, AT_REMOVEDIR) == 0
  }

  /// Makes sure the directory is there, as `create()` made it: recreates it with mode 0700
  /// at the same path if it was removed while the host runs, and puts its mode back to 0700
  /// if it changed. Refuses a path that something else now occupies: a symbolic link, or
  /// anything that is not a directory of this user.
  package func ensureExists() throws(TransportError) {
    var info = stat()
    if lstat(path, &info) != 0 {
      guard errno == ENOENT else { throw .system("lstat", path) }
      guard mkdir(path, 0o700) == 0 else {
        if errno == ENOENT { throw .directoryMissing(parentPath) }
        if errno == EACCES { throw .directoryNotWritable(parentPath) }
        // EEXIST: someone else made something there since lstat; checked below.
        if errno != EEXIST { throw .system("mkdir", path) }
        return try ensureExists()
      }
      guard lstat(path, &info) == 0 else { throw .system("lstat", path) }
    }
    guard info.st_mode & S_IFMT == S_IFDIR else {
      let what = info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "something that is not a directory"
      throw .system(call: "mkdir", errno: EEXIST, context: "\(path), which is now \(what)")
    }
    guard info.st_uid == getuid() else {
      throw .system(call: "mkdir", errno: EEXIST, context: "\(path), which is now a directory of user \(info.st_uid)")
    }
    if info.st_mode & 0o7777 != 0o700 {
      guard chmod(path, 0o700) == 0 else { throw .system("chmod", path) }
    }
  }

  private var parentPath: String {
    let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    return parent.isEmpty ? "/" : parent
  }

  /// The path of the socket called `name` in this directory.
  package func path(for name: String) -> String { "\(path)/\(name).sock" }

  /// Removes the socket files in the directory and the directory itself, without following
  /// a symbolic link that might have taken its place.
  package func remove() {
    var info = stat()
    guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return }
    let parent = open(parentPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard parent >= 0 else { return }
    defer { Glibc.close(parent) }
    let name = String(path.split(separator: "/").last ?? "")
    _ = Self.removeTree(named: name, in: parent, device: info.st_dev, inode: info.st_ino)
  }
}

/// The name of a directory entry, read in place. A `readdir` record is only as long as its
/// name, so copying the whole 256-byte `d_name` field reads past the record and, at the end of
/// a mapped page, crashes.
///
/// ```swift
/// while let entry = readdir(directory) { print(entryName(entry)) }
/// ```
package func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
  let offset = MemoryLayout<dirent>.offset(of: \.d_name)!
  return String(cString: UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: CChar.self))
}
