#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// The path of the reducer running now, noted for its thread by the operators that run a
/// child one step down (`ifLet`, `ifCaseLet`, `forEach`, presentation, stack) while the child
/// runs.
///
/// A thread's, not a task local: a reducer runs synchronously, so everything the child reads
/// while it runs is read on the thread that noted the path, and noting it costs two calls
/// where binding a task local allocated in the task and took the runtime's task status lock
/// on every action an element receives (measured: most of a `forEach`'s time). The one
/// difference from a task local: a `Task` made directly by a reducer does not inherit the
/// path. Effects never did: the store starts them after the reducer returns.
extension NavigationPath {
  /// The path of the reducer running on this thread; the root when none is noted.
  package static var current: NavigationPath {
    guard let noted = pthread_getspecific(currentPathKey) else { return NavigationPath() }
    return noted.assumingMemoryBound(to: NavigationPath.self).pointee
  }

  /// Runs `body` with `path` as the current path on this thread.
  @discardableResult
  static func withCurrent<Result>(_ path: NavigationPath, _ body: () -> Result) -> Result {
    let outer = pthread_getspecific(currentPathKey)
    return withUnsafePointer(to: path) { noted in
      pthread_setspecific(currentPathKey, noted)
      defer { pthread_setspecific(currentPathKey, outer) }
      return body()
    }
  }
}

/// Where each thread notes its current path: a pointer to the path, on the stack of the
/// `withCurrent` that noted it, or nil at the root.
private let currentPathKey: pthread_key_t = {
  var key = pthread_key_t()
  // Fails only when the process has used up its thread-specific keys (1024 on Linux).
  guard pthread_key_create(&key, nil) == 0 else { preconditionFailure("No thread-specific key left for the navigation path") }
  return key
}()
