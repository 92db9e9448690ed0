import Synchronization

/// The effects a store has running: each one's task and the cancel keys it was started under.
///
/// Thread-safe, because effects finish on the cooperative pool while the store cancels them
/// from its own actor.
final class EffectRegistry: Sendable {
  private struct Entry {
    let keys: [CancelKey]
    let task: Task<Void, Never>
    let group: EffectGroup?
    /// False once a test store stopped waiting for it (`skipInFlightEffects`).
    var isTracked = true
  }

  private struct Storage {
    var nextID = 0
    var entries: [Int: Entry] = [:]
  }

  private let storage = Mutex(Storage())
  /// Fired whenever an effect finishes, so that waiters can look again.
  let changes = ChangeSignal()
  /// Where effects run; the global concurrent executor when nil.
  let executor: EffectExecutor?

  init(executor: EffectExecutor?) {
    self.executor = executor
    executor?.onChange { [changes] in changes.fire() }
  }

  /// How many effects are running.
  var count: Int { storage.withLock { $0.entries.count } }

  /// How many running effects a test store still waits for.
  var trackedCount: Int { storage.withLock { $0.entries.values.count(where: \.isTracked) } }

  /// Stops waiting for the effects running now, without cancelling them.
  func untrackAll() {
    storage.withLock { storage in
      for id in storage.entries.keys { storage.entries[id]?.isTracked = false }
    }
  }

  /// Starts `operation` as a task registered under `keys`, in `group` if there is one.
  @discardableResult
  func start(
    keys: [CancelKey], priority: TaskPriority?, group: EffectGroup? = nil,
    operation: @escaping @Sendable () async -> Void
  ) -> Task<Void, Never> {
    let (task, joinedCancelledGroup) = storage.withLock { storage in
      let id = storage.nextID
      storage.nextID += 1
      // Created under the lock so that the task cannot finish before it is registered.
      let task = Task(executorPreference: executor, priority: priority) { [executor] in
        if let executor {
          // Tells a test clock which executor to wait on after waking this effect's sleeps.
          await EffectExecutor.$current.withValue(executor, operation: operation)
        } else {
          await operation()
        }
        self.finish(id)
      }
      storage.entries[id] = Entry(keys: keys, task: task, group: group)
      return (task, group?.insert(task, id: id) ?? false)
    }
    if joinedCancelledGroup { task.cancel() }
    return task
  }

  /// Cancels the effects that `key` reaches: same identifier, at its place or below.
  func cancel(_ key: CancelKey) {
    cancel { $0.contains(where: key.covers) }
  }

  /// Cancels the effects registered under exactly `key`.
  func cancel(exactly key: CancelKey) {
    cancel { $0.contains(where: key.isSame) }
  }

  func cancelAll() {
    cancel { _ in true }
  }

  private func cancel(where matches: ([CancelKey]) -> Bool) {
    let tasks = storage.withLock { storage in
      storage.entries.values.filter { matches($0.keys) }.map(\.task)
    }
    for task in tasks { task.cancel() }
  }

  private func finish(_ id: Int) {
    storage.withLock { $0.entries.removeValue(forKey: id) }?.group?.remove(id: id)
    changes.fire()
  }
}

/// Wakes the tasks waiting for something to change; each waiter then looks again at what it
/// waits for. Nobody polls and nobody sleeps.
final class ChangeSignal: Sendable {
  // The generation and whether anyone waits are atomics, so that firing with no one waiting
  // (once per `send`, the common case) takes no lock. Sequentially consistent on both sides: a
  // waiter sets `hasWaiters` then reads the generation, a firer bumps the generation then reads
  // `hasWaiters`, so at least one of them sees the other's write — the waiter returns at once,
  // or the firer takes the lock, which the waiter holds until its continuation is queued.
  private let current = Atomic(0)
  private let hasWaiters = Atomic(false)
  private let continuations = Mutex<[CheckedContinuation<Void, Never>]>([])

  /// A number that changes each time the signal fires.
  var generation: Int { current.load(ordering: .sequentiallyConsistent) }

  func fire() {
    current.wrappingAdd(1, ordering: .sequentiallyConsistent)
    guard hasWaiters.load(ordering: .sequentiallyConsistent) else { return }
    let waiting = continuations.withLock { continuations in
      hasWaiters.store(false, ordering: .sequentiallyConsistent)
      defer { continuations = [] }
      return continuations
    }
    for continuation in waiting { continuation.resume() }
  }

  /// Returns once the signal fires after `generation` was read (at once if it already has).
  func wait(after generation: Int) async {
    await withCheckedContinuation { continuation in
      let changed = continuations.withLock { continuations -> Bool in
        hasWaiters.store(true, ordering: .sequentiallyConsistent)
        guard current.load(ordering: .sequentiallyConsistent) == generation else { return true }
        continuations.append(continuation)
        return false
      }
      if changed { continuation.resume() }
    }
  }
}
