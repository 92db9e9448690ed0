@_spi(Testing) import Bulkhead
import Synchronization

/// Whether a `TestStore` insists on every state change, received action and effect being
/// asserted (`.on`, the default) or only checks what the test states (`.off`).
public enum Exhaustivity: Equatable, Sendable {
  case on, off
}

/// A store for tests: each `send` and `receive` states how the state must change, and the
/// test fails on any change, action or effect it did not account for.
///
/// ```swift
/// @MainActor @Test func incrementsIndependently() async {
///   let store = TestStore(initialState: TwoCounters.State()) { TwoCounters() }
///   await store.send(.counter1(.incrementButtonTapped)) { $0.counter1.count = 1 }
///   await store.send(.counter2(.incrementButtonTapped)) { $0.counter2.count = 1 }
/// }
/// ```
///
/// Effects are awaited by tracking them: `receive` returns as soon as an effect delivers an
/// action, and fails at once when no effect is left that could deliver one.
@MainActor
public final class TestStore<State: Equatable, Action: Sendable> {
  /// How strict the assertions are.
  public var exhaustivity: Exhaustivity = .on {
    didSet { endChecks.withLock { $0.exhaustivity = exhaustivity } }
  }

  /// How long `receive` and `finish` wait for effects before failing.
  public var timeout: Duration

  /// The state as of the last asserted action.
  public private(set) var state: State

  private let store: Store<State, TestAction<Action>>
  private let executor = EffectExecutor()
  private let recorder: TestRecorder<State, Action>
  private let endChecks: Mutex<EndChecks>

  /// A test store for `reducer` starting at `initialState`. Dependencies take their test
  /// values unless `prepareDependencies` overrides them.
  public init<R: Reducer<State, Action>>(
    initialState: State,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
    timeout: Duration = .seconds(1),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    let recorder = TestRecorder<State, Action>()
    let reducer = reducer()
    self.recorder = recorder
    self.state = initialState
    self.timeout = timeout
    self.store = Store(
      initialState: initialState,
      reducer: { TestReducer(base: reducer, recorder: recorder) },
      withDependencies: {
        $0.context = .test
        prepareDependencies(&$0)
      },
      effectExecutor: executor)
    self.endChecks = Mutex(
      EndChecks(
        location: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)))
  }

  deinit {
    // Runs where the test drops the store, so failures land in that test.
    let checks = endChecks.withLock { $0 }
    defer { store.cancelAllEffects() }
    guard checks.exhaustivity == .on else { return }
    if !checks.unreceived.isEmpty {
      reportIssue(
        """
        The store received \(checks.unreceived.count) unexpected \
        action\(checks.unreceived.count == 1 ? "" : "s"): …

        Unhandled actions:
        \(checks.unreceived.map { "  \($0)" }.joined(separator: "\n"))

        To fix, assert on each action with "receive", or call "skipReceivedActions".
        """, at: checks.location)
    }
    let running = store.runningEffectCount
    if running > 0 {
      reportIssue(
        """
        \(running) effect\(running == 1 ? " is" : "s are") still running at the end of the \
        test. …

        Run effects to completion with "await store.finish()", cancel them with an action, \
        or skip them with "await store.skipInFlightEffects()".
        """, at: checks.location)
    }
  }

  /// Sends `action` and asserts how it changed the state: `updateStateToExpectedResult`
  /// changes the state as it was into the state expected now.
  ///
  /// ```swift
  /// await store.send(.incrementButtonTapped) { $0.count = 1 }
  /// ```
  @discardableResult
  public func send(
    _ action: Action,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> TestStoreTask {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await settle()
    let unreceived = recorder.received
    if !unreceived.isEmpty {
      if exhaustivity == .on {
        reportIssue(
          """
          Must handle \(unreceived.count) received \
          action\(unreceived.count == 1 ? "" : "s") before sending an action: …

          Unhandled actions:
          \(unreceived.map { "  \(describe($0.action))" }.joined(separator: "\n"))
          """, at: location)
      }
      skipReceivedActions()
    }
    let task = withRuntimeWarningHandler({ reportIssue($0.message, at: location) }) {
      store.send(.sent(action))
    }
    let actual = recorder.stateAfterSend ?? store.state
    expect(actual, from: state, updateStateToExpectedResult, at: location)
    state = actual
    await settle()
    updateEndChecks()
    return TestStoreTask(task: task, store: store, timeout: timeout)
  }

  /// Waits for an effect to deliver `expectedAction`, and asserts how it changed the state.
  ///
  /// ```swift
  /// await store.receive(.timerTicked) { $0.secondsElapsed = 1 }
  /// ```
  public func receive(
    _ expectedAction: Action,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    timeout: Duration? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async where Action: Equatable {
    await receive(
      describing: describe(expectedAction), matching: { $0 == expectedAction },
      updateStateToExpectedResult, timeout: timeout,
      at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Waits for an effect to deliver an action of case `casePath`, whatever its payload, and
  /// asserts how it changed the state.
  ///
  /// ```swift
  /// await store.receive(Action.searchResponse) { $0.results = ["Blob"] }
  /// ```
  public func receive<Value>(
    _ casePath: @escaping @Sendable (Value) -> Action,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    timeout: Duration? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    let path = CasePath(casePath)
    await receive(
      describing: "an action of case \(Value.self) -> \(Action.self)",
      matching: { path.extract(from: $0) != nil }, updateStateToExpectedResult, timeout: timeout,
      at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Waits for an effect to deliver the action of case `casePath` with `payload`, and asserts
  /// how it changed the state.
  ///
  /// ```swift
  /// await store.receive(Action.searchResponse, ["Blob"]) { $0.results = ["Blob"] }
  /// ```
  public func receive<Value: Equatable>(
    _ casePath: @escaping @Sendable (Value) -> Action,
    _ payload: Value,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    timeout: Duration? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    let path = CasePath(casePath)
    await receive(
      describing: describe(casePath(payload)),
      matching: { path.extract(from: $0) == payload }, updateStateToExpectedResult,
      timeout: timeout,
      at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

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
    let finished = await store.wait(until: { [store] in store.runningEffectCount == 0 }, timeout: timeout)
    guard !finished else { return }
    reportIssue(
      """
      Expected effects to finish, but \(store.runningEffectCount) still running after \
      \(timeout). …

      An effect may be waiting on a clock that the test must advance, or on a dependency that \
      never answers.
      """,
      at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Accepts the actions received so far without asserting on them.
  public func skipReceivedActions() {
    if let last = recorder.received.last { state = last.state }
    recorder.received.removeAll()
    updateEndChecks()
  }

  /// Cancels the effects still running, without asserting on them, and waits until they
  /// have stopped.
  public func skipInFlightEffects() async {
    store.cancelAllEffects()
    _ = await store.wait(until: { [store] in store.runningEffectCount == 0 }, timeout: timeout)
  }

  private func receive(
    describing expected: String,
    matching matches: (Action) -> Bool,
    _ updateStateToExpectedResult: ((inout State) throws -> Void)?,
    timeout: Duration?,
    at location: TestLocation
  ) async {
    let timeout = timeout ?? self.timeout
    let arrived = await store.wait(
      until: { [recorder, store, exhaustivity] in
        exhaustivity == .on
          ? !recorder.received.isEmpty || store.runningEffectCount == 0
          : recorder.received.contains { matches($0.action) } || store.runningEffectCount == 0
      }, timeout: timeout)
    if exhaustivity == .off {
      while let first = recorder.received.first, !matches(first.action) {
        state = recorder.received.removeFirst().state
      }
    }
    guard !recorder.received.isEmpty else {
      let reason =
        arrived
        ? "no effect is running that could send it"
        : "none arrived within \(timeout) while \(store.runningEffectCount) effects ran"
      reportIssue("Expected to receive \(expected), but \(reason).", at: location)
      return
    }
    let (action, actual) = recorder.received.removeFirst()
    if !matches(action) {
      reportIssue(
        """
        Received unexpected action: …

          Expected:
            \(expected)
          Received:
            \(describe(action))
        """, at: location)
    }
    expect(actual, from: state, updateStateToExpectedResult, at: location)
    state = actual
    await settle()
    updateEndChecks()
  }

  /// Waits until every effect has reached its next suspension or finished, so that what the
  /// test does next (advancing a clock, sending) happens after everything already due.
  private func settle() async {
    _ = await store.wait(until: { [executor] in executor.isSettled }, timeout: timeout)
  }

  private func expect(
    _ actual: State, from previous: State,
    _ updateStateToExpectedResult: ((inout State) throws -> Void)?,
    at location: TestLocation
  ) {
    var expected = exhaustivity == .on ? previous : actual
    do {
      try updateStateToExpectedResult?(&expected)
    } catch {
      reportIssue("Threw error: \(error)", at: location)
      return
    }
    guard expected != actual else { return }
    let headline =
      updateStateToExpectedResult == nil
      ? "State was not expected to change, but a change occurred: …"
      : "A state change does not match expectation: …"
    reportIssue(
      """
      \(headline)

      \(diff(expected, actual).split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))

      (Expected: −, Actual: +)
      """, at: location)
  }

  private func updateEndChecks() {
    let unreceived = recorder.received.map { describe($0.action) }
    endChecks.withLock { $0.unreceived = unreceived }
  }
}

/// The effects started by one `TestStore.send`.
public struct TestStoreTask: Sendable {
  let task: StoreTask
  fileprivate let waitForFinish: @MainActor @Sendable (Duration) async -> Bool
  private let timeout: Duration

  fileprivate init<State, Action>(
    task: StoreTask, store: Store<State, TestAction<Action>>, timeout: Duration
  ) {
    self.task = task
    self.timeout = timeout
    self.waitForFinish = { [task] timeout in
      await withTaskGroup(of: Bool.self) { group in
        group.addTask { await task.finish(); return true }
        group.addTask {
          try? await Task.sleep(for: timeout)
          return false
        }
        let result = await group.next() ?? false
        group.cancelAll()
        return result
      }
    }
  }

  /// Cancels the effects and waits until they have stopped.
  public func cancel() async {
    task.cancel()
    await task.finish()
  }

  /// Waits for the effects to finish, failing if they are still running after the timeout.
  public func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    let timeout = timeout ?? self.timeout
    guard await !waitForFinish(timeout) else { return }
    reportIssue(
      "Expected the effects of this action to finish, but they still ran after \(timeout).",
      at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// True when the effects were cancelled.
  public var isCancelled: Bool { task.isCancelled }
}

/// An action as the test store sees it: sent by the test, or received from an effect.
enum TestAction<Action: Sendable>: Sendable {
  case sent(Action)
  case received(Action)
}

/// What the test store's reducer saw; read and written on the main actor only.
@MainActor
final class TestRecorder<State, Action> {
  var received: [(action: Action, state: State)] = []
  var stateAfterSend: State?
}

/// The facts a test store checks when it is dropped, kept where `deinit` can read them.
private struct EndChecks: Sendable {
  let location: TestLocation
  var exhaustivity = Exhaustivity.on
  var unreceived: [String] = []
}

/// Runs the feature's reducer, recording the state after each action and each action that
/// came from an effect. Its conformance is isolated to the main actor, where stores run.
private struct TestReducer<Base: Reducer>: @MainActor Reducer {
  let base: Base
  let recorder: TestRecorder<Base.State, Base.Action>

  @MainActor
  func reduce(
    into state: inout Base.State, action: TestAction<Base.Action>
  ) -> Effect<TestAction<Base.Action>> {
    switch action {
    case let .sent(action):
      let effects = base.reduce(into: &state, action: action)
      recorder.stateAfterSend = state
      return effects.map(TestAction.received)
    case let .received(action):
      let effects = base.reduce(into: &state, action: action)
      recorder.received.append((action, state))
      return effects.map(TestAction.received)
    }
  }
}

extension Store {
  /// Waits until `condition` holds or `timeout` passes; returns whether it holds. Wakes only
  /// when an action was processed, an effect finished or the deadline came.
  func wait(until condition: () -> Bool, timeout: Duration) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    let alarm = Task { [weak self] in
      try? await Task.sleep(until: deadline, clock: .continuous)
      self?.signalChange()
    }
    defer { alarm.cancel() }
    while true {
      let generation = changeGeneration
      if condition() { return true }
      if ContinuousClock.now >= deadline { return false }
      await waitForChange(after: generation)
    }
  }
}

private func describe(_ value: Any) -> String {
  render(value).joined(separator: "\n")
}
