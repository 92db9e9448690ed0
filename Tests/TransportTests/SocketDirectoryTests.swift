import Foundation
import Testing
import Transport
#if canImport(Glibc)
  import Glibc
#endif

@Suite(.serialized) struct SocketDirectoryTests {
  /// A private parent directory, so the sweep under test sees only what the test made.
  private func makeParent() throws -> String {
    var template = Array("/tmp/sweep-test-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    try #require(made != nil)
    return String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  private func removeAll(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

  /// The pid of a process that has exited and been reaped.
  private func deadPID() throws -> pid_t {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/true")
    try process.run()
    process.waitUntilExit()
    let pid = process.processIdentifier
    try #require(kill(pid, 0) == -1 && errno == ESRCH)
    return pid
  }

  private func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
  }

  @Test func directoriesOfDeadHostsAreSweptAndNothingElse() throws {
    let parent = try makeParent()
    defer { removeAll(parent) }
    let dead = try deadPID()
    let stale = "\(parent)/bulkhead-\(dead)-Ab3dEf"
    #expect(mkdir(stale, 0o700) == 0)
    // What a killed host leaves: a socket file, and say a stray file.
    let socketFile = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array("\(stale)/worker.sock".utf8) + [0]) }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFile, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    #expect(bound == 0)
    close(socketFile)
    #expect(FileManager.default.createFile(atPath: "\(stale)/stray", contents: Data([1])))

    let live = "\(parent)/bulkhead-\(getpid())-Ab3dEf"
    let notMatching = [
      "bulkhead-\(dead)-Ab3dE", "bulkhead-\(dead)-Ab3dEfg", "bulkhead-0\(dead)-Ab3dEf",
      "bulkhead-\(dead)-Ab3dE.", "bulkhead--Ab3dEf", "bulkhead-\(dead)", "other-\(dead)-Ab3dEf",
      "bulkhead-x\(dead)-Ab3dEf",
    ].map { "\(parent)/\($0)" }
    for path in [live] + notMatching { #expect(mkdir(path, 0o700) == 0) }
    // A link with the scheme's name, to a directory with something in it: neither the
    // link nor what it points to may be touched.
    let target = "\(parent)/target"
    #expect(mkdir(target, 0o700) == 0)
    #expect(FileManager.default.createFile(atPath: "\(target)/keep", contents: Data([2])))
    let link = "\(parent)/bulkhead-\(dead)-L1nkEd"
    #expect(symlink(target, link) == 0)
    // A file with the scheme's name.
    let file = "\(parent)/bulkhead-\(dead)-F1leXx"
    #expect(FileManager.default.createFile(atPath: file, contents: Data([3])))

    let removed = SocketDirectory.sweepStale(under: parent)

    #expect(removed == [stale])
    #expect(!exists(stale))
    #expect(exists(live))
    for path in notMatching { #expect(exists(path), "\(path)") }
    #expect(exists(link))
    #expect(exists("\(target)/keep"))
    #expect(exists(file))
  }

  @Test func anotherUsersDirectoryIsKept() throws {
    guard getuid() == 0 else { return }  // only root can give a directory away
    let parent = try makeParent()
    defer { removeAll(parent) }
    let theirs = "\(parent)/bulkhead-\(try deadPID())-Ab3dEf"
    #expect(mkdir(theirs, 0o700) == 0)
    #expect(chown(theirs, 65534, 65534) == 0)
    #expect(SocketDirectory.sweepStale(under: parent).isEmpty)
    #expect(exists(theirs))
  }

  @Test func createIsNamedForThisHostAndSweeps() throws {
    let parent = try makeParent()
    defer { removeAll(parent) }
    let stale = "\(parent)/bulkhead-\(try deadPID())-Ab3dEf"
    #expect(mkdir(stale, 0o700) == 0)
    let directory = try SocketDirectory.create(under: parent)
    defer { directory.remove() }
    let name = String(directory.path.split(separator: "/").last!)
    #expect(SocketDirectory.hostPID(inName: name) == getpid())
    #expect(!exists(stale))
  }

  @Test func aRemovedDirectoryIsRecreatedAndAnImpostorRefused() throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    directory.remove()
    #expect(!exists(directory.path))
    try directory.ensureExists()
    var info = stat()
    #expect(lstat(directory.path, &info) == 0)
    #expect(info.st_mode & S_IFMT == S_IFDIR)
    #expect(info.st_mode & 0o7777 == 0o700)
    #expect(info.st_uid == getuid())
    // It serves again.
    let listener = try UnixListener(path: directory.path(for: "again"))
    _ = try UnixSocket.connect(to: listener.path)
    listener.close()
    // Idempotent, and it puts a changed mode back.
    #expect(chmod(directory.path, 0o755) == 0)
    try directory.ensureExists()
    #expect(lstat(directory.path, &info) == 0 && info.st_mode & 0o7777 == 0o700)

    // Something else in its place is refused, and left alone.
    directory.remove()
    let elsewhere = try makeParent()
    defer { removeAll(elsewhere) }
    #expect(symlink(elsewhere, directory.path) == 0)
    #expect(throws: TransportError.self) { try directory.ensureExists() }
    #expect(lstat(directory.path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
    // remove() does not follow the link either.
    directory.remove()
    #expect(exists(elsewhere))
    #expect(unlink(directory.path) == 0)
    #expect(FileManager.default.createFile(atPath: directory.path, contents: Data([4])))
    #expect(throws: TransportError.self) { try directory.ensureExists() }
    #expect(unlink(directory.path) == 0)
  }
}
