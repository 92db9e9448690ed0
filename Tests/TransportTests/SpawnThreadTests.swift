import CSystem
import Dispatch
import Foundation
import Testing
import Transport
#if canImport(Glibc)
  import Glibc
#endif

@Suite(.serialized) struct SpawnThreadTests {
  /// On Linux the parent-death signal follows the *thread* that started a child. A worker
  /// started from a thread that then exits must live on, and keep serving.
  @Test func aWorkerStartedFromAThreadThatExitsLivesOn() async throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let listener = try UnixListener(path: directory.path(for: "thread"))
    let secret = LaunchSecret.random()
    let socketPath = listener.path
    let release = DispatchSemaphore(value: 0)
    // The thread starts the worker, hands it back with a pidfd on the thread itself, and
    // exits only when told: after the worker has armed its parent-death signal.
    let (worker, threadExit) = try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<(WorkerProcess, Int32), any Error>) in
      DetachedThread.run {
        let threadExit = bulkhead_pidfd_open_thread(bulkhead_thread_id())
        do {
          let worker = try WorkerProcess(
            name: "thread", executable: echoWorker, socketPath: socketPath, secret: secret) { _ in }
          continuation.resume(returning: (worker, threadExit))
        } catch {
          continuation.resume(throwing: error)
        }
        release.wait()
      }
    }
    #expect(threadExit >= 0, "pidfd_open(PIDFD_THREAD) needs Linux 6.9")
    defer { close(threadExit) }
    let connection = FramedConnection(try listener.accept(timeout: 10_000))
    // The worker sets its parent-death signal before it reads its launch and connects.
    _ = try Handshake.verify(connection, secret: secret, expectedPID: worker.pid)
    release.signal()
    // Readable once the thread is gone, and the kernel has sent the parent-death signals
    // of the children it started (it does so before it notifies the pidfd).
    var request = pollfd(fd: threadExit, events: Int16(POLLIN), revents: 0)
    #expect(poll(&request, 1, 10_000) == 1)
    try connection.send(Frame(kind: 7, payload: [1, 2, 3]))
    #expect(try connection.receive() == Frame(kind: 7, payload: [1, 2, 3]))
    #expect(!ProcessWatch.waitForExit(of: worker.pid, milliseconds: 0))
    try connection.send(Frame(kind: 0xEE, payload: []))
    #expect(await worker.waitForExit() == .exited(status: 3))
  }

  /// Threads of Dispatch and of the cooperative pool block SIGTERM, and a host may ignore
  /// it; a child inherits both. A worker undoes them as it starts, so `terminate()` works.
  @Test func aWorkerStartedFromATaskCanBeTerminated() async throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let listener = try UnixListener(path: directory.path(for: "term"))
    let secret = LaunchSecret.random()
    let previous = signal(SIGTERM, SIG_IGN)
    let worker: WorkerProcess
    do {
      defer { signal(SIGTERM, previous) }
      worker = try WorkerProcess(
        name: "term", executable: echoWorker, socketPath: listener.path, secret: secret) { _ in }
    }
    let connection = FramedConnection(try listener.accept(timeout: 10_000))
    _ = try Handshake.verify(connection, secret: secret, expectedPID: worker.pid)
    let status = try String(contentsOfFile: "/proc/\(worker.pid)/status", encoding: .utf8)
    #expect(status.contains("SigBlk:\t0000000000000000"), "\(status)")
    worker.terminate()
    let ended = ProcessWatch.waitForExit(of: worker.pid, milliseconds: 10_000)
    #expect(ended)
    if !ended { worker.kill() }
    #expect(await worker.waitForExit() == .signalled(signal: SIGTERM))
  }
}
