@_spi(Testing) import Bulkhead

/// The effects started by one `TestStore.send`, and by the actions those effects send.
///
/// ```swift
/// let task = await store.send(.onAppear)
/// await task.cancel()
/// ```
public struct TestStoreTask: Sendable {
  let task: StoreTask
  private let waitForFinish: @MainActor @Sendable (Duration) async -> Bool
  private let warnings: WarningInbox
  private let timeout: Duration

  init<State, Action>(
    task: StoreTask, store: Store<State, TestAction<Action>>, warnings: WarningInbox, timeout: Duration
  ) {
    self.task = task
    self.warnings = warnings
    self.timeout = timeout
    // Wakes on the store's own events (an effect finished) and at the deadline, never polls.
    self.waitForFinish = { [task] timeout in
      await store.wait(until: { task.isFinished }, timeout: timeout)
    }
  }

  /// Cancels the effects and waits until they have stopped.
  ///
  /// ```swift
  /// await task.cancel()
  /// ```
  public func cancel() async {
    task.cancel()
    await task.finish()
    warnings.report()
  }

  /// Waits for the effects to finish, failing if they are still running after the timeout.
  ///
  /// ```swift
  /// await store.send(.load).finish()
  /// ```
  public func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    let timeout = timeout ?? self.timeout
    let finished = await waitForFinish(timeout)
    warnings.report()
    guard !finished else { return }
    reportIssue(
      """
      Expected the effects of this action to finish, but they still ran after \(timeout). …

      Advance the clock they sleep on, cancel them, or pass a longer "timeout".
      """,
      at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// True when the effects were cancelled.
  ///
  /// ```swift
  /// #expect(task.isCancelled)
  /// ```
  public var isCancelled: Bool { task.isCancelled }
}
