#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import Synchronization

/// The dependencies of the store processing an action, in force on its thread without a
/// task-local binding.
///
/// A store puts its dependencies in force for every `send`. Bound as a task local, inside a
/// task, they cost the runtime's task status lock on every `send` (measured: about half of
/// it), and a copy of the values with a retain per field. Instead the store notes where its
/// values are, and `DependencyValues.current` answers them on this thread while nothing was
/// bound since the `send` began: anything bound inside it (a `dependency` modifier, a
/// presented child, `withDependencies`) counts here while it lasts, and wins over the store's
/// values as it would over a task local. Effects capture `DependencyValues.current` when they
/// are made, so they see the store's values as before.
///
/// The one difference from a task local: a `Task` made directly by a reducer inherits the
/// task locals of the caller of `send`, not the store's dependencies. Reducers return effects
/// for asynchronous work, and an effect sees the store's dependencies.
enum StoreDependencies {
  /// A store's dependency values, where `Frame` can point at them without a retain.
  final class Box {
    // Not checked for exclusive access at run time, as the store's own fields are not: only
    // the main actor writes it, between actions, and reads end before any call.
    @exclusivity(unchecked) var values: DependencyValues

    init(_ values: DependencyValues) { self.values = values }
  }

  /// The store processing an action: its values, and how many bindings made inside it are in
  /// force now.
  private struct Frame {
    /// Unretained: the store holds its box for longer than any `send` runs.
    let values: Unmanaged<Box>
    var bindings: Int
  }

  /// The thread on which `frame` is in force, as `threadID` names it; 0 when none is.
  private static let thread = Atomic<UInt>(0)

  // Safe without a lock: only the main actor sets it (`withValues`), one job at a time, and
  // only code on the thread named by `thread` reads or counts on it — that same job, while it
  // runs. Not checked for exclusive access at run time, which costs a thread-local lookup.
  @exclusivity(unchecked) nonisolated(unsafe) private static var frame: Frame?

  /// Runs `body` with the values in `box` in force on this thread, as described above.
  @MainActor
  static func withValues<Result>(in box: Box, _ body: () -> Result) -> Result {
    let outerThread = thread.load(ordering: .relaxed)
    let outerFrame = frame
    frame = Frame(values: .passUnretained(box), bindings: 0)
    thread.store(threadID(), ordering: .releasing)
    defer {
      frame = outerFrame
      thread.store(outerThread, ordering: .releasing)
    }
    return body()
  }

  /// The values of the store processing an action on this thread, when nothing bound since
  /// is in force; nil otherwise.
  @inline(__always)
  static func values() -> DependencyValues? {
    guard isProcessingHere, let frame, frame.bindings == 0 else { return nil }
    return frame.values._withUnsafeGuaranteedRef { $0.values }
  }

  /// Counts a binding that begins, when a store is processing an action on this thread: true
  /// when it counted, and `bindingEnds()` must follow.
  @inline(__always)
  static func bindingBegins() -> Bool {
    guard isProcessingHere, frame != nil else { return false }
    frame!.bindings += 1
    return true
  }

  static func bindingEnds() {
    frame!.bindings -= 1
  }

  private static var isProcessingHere: Bool {
    thread.load(ordering: .acquiring) == threadID()
  }

  @inline(__always)
  private static func threadID() -> UInt {
    #if canImport(Glibc)
    UInt(pthread_self())
    #else
    UInt(bitPattern: pthread_self())
    #endif
  }
}
