import CSystem
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One thread that waits on many descriptors at once (epoll), for what the host reads of each
/// worker that is seldom busy: its output pipes and its exit. A thread per pipe and per exit
/// cost the host three threads a worker, 3,072 for a pool of 1,024; a watch costs one thread
/// for them all.
///
/// A handler runs on the watch's thread, so it must not block for long: every other watched
/// descriptor waits meanwhile. Where epoll cannot be had, each descriptor gets a thread of its
/// own, with the same handler (a read there blocks until there is input, as it should).
///
/// ```swift
/// DescriptorWatch.output.watch(pipe, onReadable: { read(pipe, &buffer, 4096) > 0 }, onEnd: { print("closed") })
/// ```
package final class DescriptorWatch: Sendable {
  /// The watch for the workers' standard output and error, whose handlers hand lines on.
  package static let output = DescriptorWatch()
  /// The watch for the workers' exits (their pidfds), kept apart from the output so that a
  /// slow reader of the output never holds up hearing that a worker died.
  package static let exits = DescriptorWatch()

  private struct Watched: Sendable {
    let descriptor: Int32
    /// Whether the watch closes `descriptor` at the end; else `onEnd` does.
    let closes: Bool
    let onReadable: @Sendable () -> Bool
    let onEnd: @Sendable () -> Void
  }

  /// -1 when this process could have none: then every descriptor gets a thread.
  private let epoll: Int32
  private let watched = Mutex<(next: UInt64, entries: [UInt64: Watched])>((1, [:]))

  private init() {
    epoll = bulkhead_epoll_create()
    // The watch lives as long as the process: a static, never released.
    if epoll >= 0 { DetachedThread.run { [self] in serve() } }
  }

  /// Calls `onReadable` whenever `descriptor` has input or has reached its end, until it
  /// returns false; then stops watching `descriptor`, closes it, and calls `onEnd`. The watch
  /// owns `descriptor` from here on: only it closes it. With `closing: false`, `onEnd` must
  /// close it: for a descriptor the owner also writes to, which it must not write to once
  /// closed (its number may be reused).
  package func watch(
    _ descriptor: Int32, closing: Bool = true, onReadable: @escaping @Sendable () -> Bool,
    onEnd: @escaping @Sendable () -> Void
  ) {
    let entry = Watched(descriptor: descriptor, closes: closing, onReadable: onReadable, onEnd: onEnd)
    if epoll >= 0 {
      let token = watched.withLock { watched in
        defer { watched.next += 1 }
        watched.entries[watched.next] = entry
        return watched.next
      }
      // Added after the entry is in place: the thread may see it ready at once.
      guard bulkhead_epoll_add(epoll, descriptor, token) != 0 else { return }
      _ = watched.withLock { $0.entries.removeValue(forKey: token) }
    }
    DetachedThread.run {
      while entry.onReadable() {}
      Self.finish(entry)
    }
  }

  private func serve() {
    var tokens = [UInt64](repeating: 0, count: 64)
    while true {
      let count = tokens.withUnsafeMutableBufferPointer { bulkhead_epoll_wait(epoll, $0.baseAddress, Int32($0.count), -1) }
      guard count >= 0 else {
        if errno == EINTR { continue }
        return
      }
      for token in tokens.prefix(Int(count)) {
        guard let entry = watched.withLock({ $0.entries[token] }), !entry.onReadable() else { continue }
        // Removed before it is closed, so that its number, reused, cannot be taken for it.
        _ = bulkhead_epoll_remove(epoll, entry.descriptor)
        _ = watched.withLock { $0.entries.removeValue(forKey: token) }
        Self.finish(entry)
      }
    }
  }

  private static func finish(_ entry: Watched) {
    if entry.closes { Glibc.close(entry.descriptor) }
    entry.onEnd()
  }
}
