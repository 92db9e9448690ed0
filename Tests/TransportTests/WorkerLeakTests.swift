import CSystem
import Foundation
import TestThreads
import Testing
import Transport
#if canImport(Glibc)
  import Glibc
#endif

@Suite(.onItsOwnThread, .serialized) struct WorkerLeakTests {
  /// Starts an echo worker, proves it serves, and ends it the way `how` says; returns the
  /// host's ends of its standard streams as /proc names them once `waitForExit()` has
  /// returned, by when it must have been reaped: its console, one socket for its input and
  /// output (`socket:[inode]`, the host's end), and its error pipe (`pipe:[inode]`, the same
  /// at both ends).
  private func cycle(_ listener: UnixListener, ending how: Int) async throws -> [String] {
    let secret = LaunchSecret.random()
    let worker = try WorkerProcess(
      name: "cycle", executable: echoWorker, socketPath: listener.path, secret: secret) { _ in }
    let connection = FramedConnection(try listener.accept(timeout: 10_000))
    _ = try Handshake.verify(connection, secret: secret, expectedPID: worker.pid)
    // Opened while the worker runs (it just proved itself), so it names this process and no
    // later one that is given its pid.
    let identity = bulkhead_pidfd_open(worker.pid)
    try #require(identity >= 0, "pidfd_open(\(worker.pid)): errno \(errno)")
    defer { close(identity) }
    // The check below can tell: a worker that runs is not reaped.
    #expect(!hasBeenReaped(pidfd: identity))
    try connection.send(Frame(kind: 1, payload: [9]))
    #expect(try connection.receive() == Frame(kind: 1, payload: [9]))
    let streams = (0...2).map { stream in
      var buffer = [CChar](repeating: 0, count: 64)
      let count = readlink("/proc/\(worker.pid)/fd/\(stream)", &buffer, buffer.count - 1)
      return String(decoding: buffer[0..<max(0, count)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    // Input and output are one socket; errors a pipe of their own.
    #expect(streams[0].hasPrefix("socket:") && streams[1] == streams[0])
    #expect(streams[2].hasPrefix("pipe:"))
    let console = try #require(worker.consoleIdentity)
    #expect(console.hasPrefix("socket:") && console != streams[0])
    switch how % 3 {
    case 0:
      worker.closeInput()
      #expect(await worker.waitForExit() == .exited(status: 0))
    case 1:
      try connection.send(Frame(kind: 0xEE, payload: []))
      #expect(await worker.waitForExit() == .exited(status: 3))
    default:
      worker.kill()
      #expect(await worker.waitForExit() == .signalled(signal: SIGKILL))
    }
    #expect(hasBeenReaped(pidfd: identity), "worker \(worker.pid) is a zombie after waitForExit()")
    return [console, streams[2]]
  }

  /// A thousand workers started and ended (closing their input, exiting on their own, or
  /// killed, in turn) leave the host's descriptors and threads as they were, and no zombie.
  @Test func restartsLeaveNoDescriptorThreadOrZombie() async throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let listener = try UnixListener(path: directory.path(for: "cycle"))
    // The first worker starts what lives as long as the process: the spawn thread and its
    // run loop, Foundation's process manager thread and its run loop.
    _ = try await cycle(listener, ending: 0)
    let descriptorsBefore = openDescriptors()
    let threadsBefore = threadCount()
    let started = ContinuousClock.now
    var ends: Set<String> = []
    for round in 0..<1_000 {
      ends.formUnion(try await cycle(listener, ending: round))
    }
    let elapsed = ContinuousClock.now - started
    let descriptorsAfter = openDescriptors()
    let threadsAfter = threadCount()
    print("1,000 workers in \(elapsed); descriptors \(descriptorsBefore.count) → \(descriptorsAfter.count), threads \(threadsBefore) → \(threadsAfter)")
    // Exactly: no descriptor of this process is open on any worker's console or pipe.
    #expect(ends.count == 2_000)
    #expect(Set(descriptorsAfter.values).isDisjoint(with: ends))
    // The counts of the whole process are printed, not checked: other suites open and close
    // descriptors and threads at the same time. `SoakTests` checks them in a process of its
    // own. No zombie: each cycle saw its worker reaped.
  }

  /// A worker released before it exits is not kept alive by the host: its input closes, it
  /// exits, and nothing of it stays open.
  @Test func aReleasedWorkerExitsAndLeavesNothing() async throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let listener = try UnixListener(path: directory.path(for: "released"))
    weak var released: WorkerProcess?
    var pid: pid_t = 0
    var connection: FramedConnection?
    do {
      let secret = LaunchSecret.random()
      let worker = try WorkerProcess(
        name: "released", executable: echoWorker, socketPath: listener.path, secret: secret) { _ in }
      released = worker
      pid = worker.pid
      connection = FramedConnection(try listener.accept(timeout: 10_000))
      _ = try Handshake.verify(connection!, secret: secret, expectedPID: pid)
    }
    // Nothing else holds the object: it is gone with the last reference, and its input
    // closed with it, so the worker exits and its socket ends.
    #expect(released == nil)
    #expect(try connection?.receive() == nil)
    connection = nil
    #expect(ProcessWatch.waitForExit(of: pid, milliseconds: 10_000))
  }
}
