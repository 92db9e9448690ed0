/// The effects started by one `send`: await them, or cancel them.
///
/// ```swift
/// let task = store.send(.startTimerButtonTapped)
/// task.cancel()  // cancels the timer effect the action started
/// ```
public struct StoreTask: Hashable, Sendable {
  let task: Task<Void, Never>?

  init(_ tasks: [Task<Void, Never>]) {
    guard !tasks.isEmpty else {
      task = nil
      return
    }
    task = Task {
      await withTaskCancellationHandler {
        for task in tasks { await task.value }
      } onCancel: {
        for task in tasks { task.cancel() }
      }
    }
  }

  /// Cancels the effects.
  public func cancel() { task?.cancel() }

  /// Waits until every effect has finished.
  public func finish() async { await task?.value }

  /// True when the effects were cancelled.
  public var isCancelled: Bool { task?.isCancelled ?? true }
}
