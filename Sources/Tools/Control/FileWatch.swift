import Bulkhead
import BulkheadDistribution
import Foundation

/// Wakes a waiter when a file is written or a directory gains an entry (inotify), so that
/// `up` waits on the run file being written and `logs -f` on new lines, not on a clock.
///
/// ```swift
/// let watch = try FileWatch(path: log, for: UInt32(IN_MODIFY))
/// defer { watch.close() }
/// watch.wait(milliseconds: 500)
/// ```
struct FileWatch {
  private let descriptor: Int32

  init(path: String, for events: UInt32) throws(DetachedError) {
    descriptor = inotify_init1(Int32(IN_CLOEXEC))
    guard descriptor >= 0, inotify_add_watch(descriptor, path, events) >= 0 else {
      let failure = errno
      if descriptor >= 0 { Glibc.close(descriptor) }
      throw .cannotWatch(path: path, errno: failure)
    }
  }

  /// Waits until one of the events happens, or at most `milliseconds`.
  func wait(milliseconds: Int32) {
    var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    guard poll(&request, 1, milliseconds) > 0 else { return }
    var events = [UInt8](repeating: 0, count: 4096)
    _ = read(descriptor, &events, events.count)
  }

  func close() { Glibc.close(descriptor) }
}
