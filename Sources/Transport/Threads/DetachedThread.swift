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
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }

  /// Runs `body` on a new detached thread.
  package static func run(_ body: @escaping @Sendable () -> Void) {
    let work = Unmanaged.passRetained(Work(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let result = pthread_create(&thread, &attributes, { raw in
      guard let raw else { return nil }
      Unmanaged<Work>.fromOpaque(raw).takeRetainedValue().body()
      return nil
    }, work)
    if result != 0 {
      // Out of threads: run on a dispatch thread rather than not at all.
      let work = Unmanaged<Work>.fromOpaque(work).takeRetainedValue()
      DispatchQueue.global().async { work.body() }
    }
  }
}
