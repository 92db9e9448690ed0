import CSystem
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The write end of the pipe that the signal handlers write to. Set once, before the first
/// handler is installed, and only read afterwards; a handler does no more than `write(2)` with
/// it.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Signals that end a process through its own clean-up (a terminate, a hang-up, the parent's
/// death), handled on a thread of their own: each signal's handler only writes its number to a
/// pipe, and the thread reads it and does what the signal means.
///
/// The handler is installed before `handle` returns, so a signal that comes later is never
/// lost, as one is between `signal(_, SIG_IGN)` and a Dispatch signal source's registration,
/// which Dispatch makes later, on a thread of its own. Not blocked and taken with `sigwait`:
/// a blocked mask would be inherited by the processes this one starts (a worker's own
/// parent-death signal would be ignored). A handler, by contrast, is reset when a child
/// executes its program.
///
/// ```swift
/// try EndingSignals.handle([SIGTERM, SIGHUP]) { number in cleanUpAndExit(because: number) }
/// ```
package enum EndingSignals {
  /// What each signal handled does.
  private static let actions = Mutex<[Int32: @Sendable (Int32) -> Void]>([:])

  /// Calls `body` on the signals' thread with each of `signals` as it arrives, from now on.
  package static func handle(_ signals: [Int32], with body: @escaping @Sendable (Int32) -> Void) throws(TransportError) {
    try actions.withLock { actions throws(TransportError) in
      if signalPipeWriteEnd < 0 { signalPipeWriteEnd = try startReading() }
      for number in signals { actions[number] = body }
    }
    for number in signals {
      signal(number) { number in
        var number = number
        _ = write(signalPipeWriteEnd, &number, MemoryLayout<Int32>.size)
      }
    }
  }

  /// Makes the pipe and the thread that reads it; returns the pipe's write end.
  private static func startReading() throws(TransportError) -> Int32 {
    var ends: [Int32] = [-1, -1]
    // Close-on-exec: not inherited by the processes this one starts.
    guard bulkhead_pipe(&ends) == 0 else { throw .system("pipe2", "the pipe that signal handlers write to") }
    // A handler never waits: should the pipe fill (the thread busy with an ending that does
    // not return), a signal more is dropped, and the ending under way goes on.
    _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
    let readEnd = ends[0]
    DetachedThread.run {
      var number: Int32 = 0
      while true {
        let count = read(readEnd, &number, MemoryLayout<Int32>.size)
        if count < 0 && errno == EINTR { continue }
        guard count == MemoryLayout<Int32>.size else { return }
        actions.withLock { $0[number] }?(number)
      }
    }
    return ends[1]
  }
}
