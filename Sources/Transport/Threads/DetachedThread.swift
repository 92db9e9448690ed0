import CSystem
import Dispatch

#if canImport(Glibc)
  import Glibc
#endif

/// A POSIX thread of its own, for work that blocks for long: reading a socket, waiting for a
/// process. Foundation's `Thread` is not used because it traps as it starts in a program that
/// links Foundation statically (`--static-swift-stdlib`, Swift 6.3 on Linux).
///
/// ```swift
/// DetachedThread.run { while let frame = try? connection.receive() { handle(frame) } }
/// ```
package enum DetachedThread {
  private final class Work: Sendable {
    let body: @Sendable () -> Void
    let inBackground: Bool
    init(_ body: @escaping @Sendable () -> Void, inBackground: Bool) {
      self.body = body
      self.inBackground = inBackground
    }
  }

  /// Runs `body` on a new detached thread; `inBackground`, at the lowest priority (nice 19),
  /// for work that may wait while the threads on an action's path run first: on a core it
  /// shares with them, the kernel preempts it as soon as one of them wakes.
  package static func run(inBackground: Bool = false, _ body: @escaping @Sendable () -> Void) {
    let work = Unmanaged.passRetained(Work(body, inBackground: inBackground)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let result = pthread_create(&thread, &attributes, { raw in
      guard let raw else { return nil }
      let work = Unmanaged<Work>.fromOpaque(raw).takeRetainedValue()
      // On a core it shares with the threads on an action's path, the kernel preempts it.
      if work.inBackground { _ = bulkhead_lower_thread_priority() }
      work.body()
      return nil
    }, work)
    if result != 0 {
      // Out of threads: run on a dispatch thread rather than not at all.
      let work = Unmanaged<Work>.fromOpaque(work).takeRetainedValue()
      DispatchQueue.global().async { work.body() }
    }
  }
}
