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
    return noted.assumingMemoryBound(to: PathNote.self).pointee.path
  }

  /// Runs `body` with `path` as the current path on this thread.
  @discardableResult
  static func withCurrent<Result>(_ path: inout NavigationPath, _ body: () -> Result) -> Result {
    withUnsafePointer(to: &path) { path in
      withNote(outer: pthread_getspecific(currentPathKey), .path(path), body)
    }
  }

  /// Runs `body` with the path one `forEach` element down from the current one as the
  /// current path: the element `id` of the collection that `holder` names.
  ///
  /// The path is made only if something reads it: an element receives every action sent to
  /// it through here, and most of its actions read no path.
  static func withCurrentElement<ID: Hashable & Sendable, Result>(
    _ id: ID, of holder: AnyHashableSendable, _ body: () -> Result
  ) -> Result {
    let outer = pthread_getspecific(currentPathKey)
    return withUnsafePointer(to: id) { id in
      withUnsafePointer(to: holder) { holder in
        withNote(outer: outer, .element(outer: outer, holder: holder, id: id, idType: ID.self), body)
      }
    }
  }

  /// Runs `body` with `note` as this thread's note, then restores `outer`, the note it had.
  private static func withNote<Result>(
    outer: UnsafeMutableRawPointer?, _ note: PathNote, _ body: () -> Result
  ) -> Result {
    withUnsafePointer(to: note) { noted in
      pthread_setspecific(currentPathKey, noted)
      defer { pthread_setspecific(currentPathKey, outer) }
      return body()
    }
  }
}

/// What a thread notes as its current path: the path itself, or the parts of a path one
/// `forEach` element down from the note outside it. Each pointer is to a value on the stack
/// of the call that noted it, which outlives the note.
private enum PathNote {
  case path(UnsafePointer<NavigationPath>)
  case element(
    outer: UnsafeMutableRawPointer?, holder: UnsafePointer<AnyHashableSendable>,
    id: UnsafeRawPointer, idType: any (Hashable & Sendable).Type)

  var path: NavigationPath {
    switch self {
    case let .path(path):
      return path.pointee
    case let .element(outer, holder, id, idType):
      let outerPath = outer?.assumingMemoryBound(to: PathNote.self).pointee.path ?? NavigationPath()
      return Self.appending(id, of: idType, holder: holder.pointee, to: outerPath)
    }
  }

  private static func appending<ID: Hashable & Sendable>(
    _ id: UnsafeRawPointer, of idType: ID.Type, holder: AnyHashableSendable, to path: NavigationPath
  ) -> NavigationPath {
    path.appendingElement(id.assumingMemoryBound(to: ID.self).pointee, of: holder)
  }
}

/// Where each thread notes its current path: a pointer to a `PathNote`, on the stack of the
/// call that noted it, or nil at the root.
private let currentPathKey: pthread_key_t = {
  var key = pthread_key_t()
  // Fails only when the process has used up its thread-specific keys (1024 on Linux).
  guard pthread_key_create(&key, nil) == 0 else { preconditionFailure("No thread-specific key left for the navigation path") }
  return key
}()
