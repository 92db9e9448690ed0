#if canImport(Glibc)
  import Glibc
#endif
import Transport

/// The write end of the pipe that signal handlers write to. Set once, before any handler is
/// installed, and only read afterwards; a handler may do no more than `write(2)` with it.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Signals that end the relay through its cleanup (the parent-death signal, a host's
/// terminate). Not blocked and taken with `sigwait`: a blocked mask would be inherited by the
/// worker, whose own parent-death signal would then be ignored. A handler's disposition, by
/// contrast, is reset when the worker executes its program.
enum EndingSignals {
  /// Calls `body` on a thread of its own with each of `signals` as it arrives.
  static func handle(_ signals: [Int32], with body: @escaping @Sendable (Int32) -> Void) {
    var descriptors: [Int32] = [-1, -1]
    guard pipe(&descriptors) == 0 else {
      report("cannot watch for signals: pipe failed (errno \(errno)); a signal will end the relay without cleanup")
      return
    }
    // Not inherited by the worker.
    for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    let readEnd = descriptors[0]
    signalPipeWriteEnd = descriptors[1]
    DetachedThread.run {
      var number: Int32 = 0
      while true {
        let count = read(readEnd, &number, MemoryLayout<Int32>.size)
        if count < 0 && errno == EINTR { continue }
        guard count == MemoryLayout<Int32>.size else { return }
        body(number)
      }
    }
    for number in signals {
      signal(number) { number in
        var number = number
        _ = write(signalPipeWriteEnd, &number, MemoryLayout<Int32>.size)
      }
    }
  }
}
