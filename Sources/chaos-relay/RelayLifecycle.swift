import Dispatch
import Synchronization
import Transport

#if canImport(Glibc)
  import Glibc
#endif

/// The relay's end, whichever way it comes: a lane closes, the host closes standard input
/// (then `WorkerLaunch`'s own thread calls `exit`), or a signal arrives. Every path runs
/// `cleanUp()` once, which kills the worker, removes the socket directory and prints the
/// summary, so nothing outlives the relay.
final class RelayLifecycle: Sendable {
  private struct Resources {
    var worker: WorkerProcess?
    var directory: SocketDirectory?
    var isCleanedUp = false
    var endReason: String?
  }

  private let resources = Mutex(Resources())
  private let ended = DispatchSemaphore(value: 0)
  let tally: Tally
  private let seed: UInt64

  init(seed: UInt64) {
    self.seed = seed
    tally = Tally { frames, mutated in report("seed \(seed): so far relayed \(frames) frames, mutated \(mutated)") }
  }

  func own(_ directory: SocketDirectory) { resources.withLock { $0.directory = directory } }
  func own(_ worker: WorkerProcess) { resources.withLock { $0.worker = worker } }

  /// Removes the socket directory now that the worker has connected: it is not needed any
  /// more, and gone it cannot be left behind however the relay ends.
  func removeDirectory() {
    let directory = resources.withLock { resources in
      defer { resources.directory = nil }
      return resources.directory
    }
    directory?.remove()
  }

  /// Ends the relay because of `reason`; the first reason is the one reported.
  func end(because reason: String) {
    resources.withLock { resources in
      if resources.endReason == nil { resources.endReason = reason }
    }
    ended.signal()
  }

  /// Blocks the calling thread until something ends the relay.
  func waitForEnd() { ended.wait() }

  /// Kills the worker and waits until it has exited, removes the socket directory, and prints
  /// the summary. Runs once; a second caller (the `atexit` handler of another thread's `exit`)
  /// waits for the first to finish, so that its `exit` cannot cut the first one short.
  func cleanUp() {
    resources.withLock { resources in
      guard !resources.isCleanedUp else { return }
      resources.isCleanedUp = true
      if let worker = resources.worker {
        worker.kill()
        if !ProcessWatch.waitForExit(of: worker.pid, milliseconds: 5_000) {
          report("worker \(worker.pid) did not exit within 5 s of SIGKILL")
        }
      }
      resources.directory?.remove()
      let reason = resources.endReason ?? "the host closed standard input"
      report("seed \(seed): \(tally.summary); ended: \(reason)")
    }
  }
}

/// Writes `message` as one line on standard error, in one write so that lines from different
/// threads do not interleave.
func report(_ message: String) {
  let line = Array("chaos-relay[\(getpid())]: \(message)\n".utf8)
  line.withUnsafeBytes { raw in
    var offset = 0
    while offset < raw.count {
      let written = write(STDERR_FILENO, raw.baseAddress! + offset, raw.count - offset)
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return }
      offset += written
    }
  }
}
