@_spi(Testing) import Bulkhead

extension TestStore {
  /// Waits until every effect has finished, failing if some are still running after the
  /// timeout.
  ///
  /// ```swift
  /// await store.send(.task)
  /// await store.receive(.loaded) { $0.isLoading = false }
  /// await store.finish()
  /// ```
  public func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    let timeout = timeout ?? self.timeout
    let finished = await store.wait(
      until: { [store] in store.trackedEffectCount == 0 }, timeout: timeout)
    warnings.report()
    guard !finished else { return }
    reportIssue(
      """
      Expected effects to finish, but \(store.trackedEffectCount) still running after \
      \(timeout). …

      An effect may be waiting on a clock that the test must advance ("await \
      clock.advance(by:)"), or on a dependency that never answers. To stop waiting for it, \
      cancel it with an action or call "await store.skipInFlightEffects()".
      """,
      at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Accepts the actions received so far without asserting on them; the state moves to the
  /// state after the last one. With `strict`, fails when there was nothing to skip.
  ///
  /// ```swift
  /// await store.send(.refresh)
  /// await store.skipReceivedActions()
  /// ```
  public func skipReceivedActions(
    strict: Bool = true,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    await settle()
    if strict, recorder.received.isEmpty {
      reportIssue(
        """
        There were no received actions to skip. …

        Remove the call, or pass "strict: false" if there may be none.
        """, at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }
    acceptReceivedActions()
  }

  /// Stops waiting for the effects running now, without cancelling them: `finish`, `receive`
  /// and the end of the test no longer count them. With `strict`, fails when none was running.
  ///
  /// ```swift
  /// await store.send(.onAppear)  // starts a long-lived listener
  /// await store.skipInFlightEffects()
  /// ```
  public func skipInFlightEffects(
    strict: Bool = true,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    await settle()
    if strict, store.trackedEffectCount == 0 {
      reportIssue(
        """
        There were no in-flight effects to skip. …

        Remove the call, or pass "strict: false" if there may be none.
        """, at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }
    store.untrackRunningEffects()
  }
}
