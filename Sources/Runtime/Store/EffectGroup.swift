import Synchronization

/// The effects that one `Store.send` started, together with the effects started by the
/// actions those effects sent, and so on: everything a `StoreTask` awaits and cancels.
///
/// Effects join the group of the send that caused them, however many effect-to-action steps
/// removed, so cancelling the task of a top-level send stops the whole cascade. A task that
/// joins a group already cancelled is cancelled at once.
final class EffectGroup: Sendable {
  private struct State {
    var running: [Int: Task<Void, Never>] = [:]
    var isCancelled = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state = Mutex(State())

  /// Adds `task`, the effect the registry numbered `id`. Returns true when the group was
  /// cancelled already, so the caller cancels `task` (outside its own lock).
  func insert(_ task: Task<Void, Never>, id: Int) -> Bool {
    state.withLock { state in
      state.running[id] = task
      return state.isCancelled
    }
  }

  /// The effect numbered `id` finished.
  func remove(id: Int) {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.running[id] = nil
      guard state.running.isEmpty else { return [] }
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Cancels every effect in the group, and every effect that joins it later.
  func cancel() {
    let tasks = state.withLock { state in
      state.isCancelled = true
      return Array(state.running.values)
    }
    for task in tasks { task.cancel() }
  }

  var isCancelled: Bool { state.withLock { $0.isCancelled } }

  /// True when no effect of the group is running.
  var isFinished: Bool { state.withLock { $0.running.isEmpty } }

  /// Returns once no effect of the group is running.
  func wait() async {
    await withCheckedContinuation { continuation in
      let finished = state.withLock { state -> Bool in
        guard !state.running.isEmpty else { return true }
        state.waiters.append(continuation)
        return false
      }
      if finished { continuation.resume() }
    }
  }
}
