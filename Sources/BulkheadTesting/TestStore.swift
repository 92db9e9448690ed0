@_spi(Testing) import Bulkhead
import Synchronization

/// Whether a `TestStore` insists on every state change, received action and effect being
/// asserted (`.on`, the default) or only checks what the test states (`.off`).
///
/// ```swift
/// store.exhaustivity = .off  // assert only what this test is about
/// ```
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
  ///
  /// ```swift
  /// store.exhaustivity = .off
  /// await store.send(.saveButtonTapped)  // the state may change in ways left unasserted
  /// ```
  public var exhaustivity: Exhaustivity = .on {
    didSet { endChecks.withLock { $0.exhaustivity = exhaustivity } }
  }

  /// How long `receive` and `finish` wait for effects before failing.
  ///
  /// ```swift
  /// store.timeout = .seconds(5)  // an effect that crosses to a worker process
  /// ```
  public var timeout: Duration

  /// The state as of the last asserted action.
  ///
  /// ```swift
  /// #expect(store.state.counter1.count == 1)
  /// ```
  public private(set) var state: State

  /// The dependencies of the steps to come: a change applies to the reducer, and to the
  /// effects it creates, from the next `send` or received action on.
  ///
  /// ```swift
  /// store.dependencies.date = .constant(Date(timeIntervalSince1970: 60))
  /// await store.send(.stamp) { $0.stampedAt = Date(timeIntervalSince1970: 60) }
  /// ```
  public var dependencies: DependencyValues {
    get { store.dependencies }
    set { store.dependencies = newValue }
  }

  let store: Store<State, TestAction<Action>>
  private let executor: EffectExecutor
  let recorder: TestRecorder<State, Action>
  private let endChecks: Mutex<EndChecks>
  private let dismissal: StoreDismissal
  let warnings: WarningInbox

  /// A test store for `reducer` starting at `initialState`. Dependencies take their test
  /// values unless `prepareDependencies` overrides them.
  ///
  /// The feature at the root can dismiss the store, as a presented feature dismisses itself:
  /// `dismiss()` in one of its effects cancels every effect, and a later `send` fails.
  ///
  /// ```swift
  /// let store = TestStore(initialState: Guestbook.State()) { Guestbook() } withDependencies: {
  ///   $0.uuid = .incrementing
  /// }
  /// ```
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
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let warnings = WarningInbox()
    let executor = EffectExecutor()
    let dismissal = StoreDismissal()
    self.dismissal = dismissal
    self.warnings = warnings
    self.executor = executor
    self.recorder = recorder
    self.state = initialState
    self.timeout = timeout
    // The setup's warnings (a default without a test value read there) are the test's too.
    let store = withRuntimeWarningHandler(warnings.handler(at: location)) {
      Store(
        initialState: initialState,
        reducer: { TestReducer(base: reducer, recorder: recorder) },
        withDependencies: { [dismissal] in
          $0.context = .test
          $0.dismiss = dismissal.effect
          prepareDependencies(&$0)
        },
        effectExecutor: executor)
    }
    dismissal.attach(cancelling: store.effectCancellation)
    self.store = store
    self.endChecks = Mutex(EndChecks(location: location))
  }

  deinit {
    // Runs where the test drops the store, so failures land in that test.
    let checks = endChecks.withLock { $0 }
    defer { store.cancelAllEffects() }
    warnings.close()
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
    let running = store.trackedEffectCount
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
    if let dismissedAt = dismissal.location {
      reportIssue(
        """
        Can't send \(renderHeadline(action)): the store was dismissed by "dismiss()" at \
        \(dismissedAt). …

        A dismissed store's effects were cancelled, and it takes no more actions. To test \
        what happens after the dismissal, present the feature from a parent, or give the \
        store a dismissal of its own ("$0.dismiss = DismissEffect { … }").
        """, at: location)
      warnings.report()
      return TestStoreTask(task: .empty, store: store, warnings: warnings, timeout: timeout)
    }
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
      acceptReceivedActions()
    }
    // The warnings of this action and of the effects it starts, wherever they run, fail
    // the test at this step.
    let task = withRuntimeWarningHandler(warnings.handler(at: location)) {
      store.send(.sent(action))
    }
    warnings.report()
    let actual = recorder.stateAfterSend ?? store.state
    expect(actual, from: state, updateStateToExpectedResult, at: location)
    state = actual
    await settle()
    updateEndChecks()
    return TestStoreTask(task: task, store: store, warnings: warnings, timeout: timeout)
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

  /// Waits for an effect to deliver an action for which `isMatching` is true, and asserts
  /// how it changed the state.
  ///
  /// ```swift
  /// await store.receive({ if case .searchResponse = $0 { true } else { false } }) {
  ///   $0.results = ["Blob"]
  /// }
  /// ```
  public func receive(
    _ isMatching: (_ action: Action) -> Bool,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    timeout: Duration? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    await receive(
      describing: "an action matching the predicate", matching: isMatching,
      updateStateToExpectedResult, timeout: timeout,
      at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  private func receive(
    describing expected: String,
    matching matches: (Action) -> Bool,
    _ updateStateToExpectedResult: ((inout State) throws -> Void)?,
    timeout: Duration?,
    at location: TestLocation
  ) async {
    defer { warnings.report() }
    let timeout = timeout ?? self.timeout
    let arrived = await store.wait(
      until: { [recorder, store, exhaustivity] in
        exhaustivity == .on
          ? !recorder.received.isEmpty || store.trackedEffectCount == 0
          : recorder.received.contains { matches($0.action) } || store.trackedEffectCount == 0
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
        : "none arrived within \(timeout) while \(store.trackedEffectCount) effects ran"
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
  func settle() async {
    _ = await store.wait(until: { [executor] in executor.isSettled }, timeout: timeout)
    warnings.report()
  }

  private func expect(
    _ actual: State, from previous: State,
    _ updateStateToExpectedResult: ((inout State) throws -> Void)?,
    at location: TestLocation
  ) {
    var expected = exhaustivity == .on ? previous : actual
    do {
      // Warnings the expected state's own code raises (an assignment the state refuses) are
      // this step's.
      try withRuntimeWarningHandler(warnings.handler(at: location)) { try updateStateToExpectedResult?(&expected) }
    } catch {
      reportIssue("Threw error: \(error)", at: location)
      return
    }
    guard expected != actual else {
      if exhaustivity == .on, updateStateToExpectedResult != nil, actual == previous {
        reportIssue(
          """
          Expected the state to change, but it did not: the assertion closure made no \
          observable change. …

          If no change is expected, omit the closure: "await store.send(action)".
          """, at: location)
      }
      return
    }
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

  /// Takes the actions received so far as asserted, with the state after the last one.
  func acceptReceivedActions() {
    if let last = recorder.received.last { state = last.state }
    recorder.received.removeAll()
    updateEndChecks()
  }

  func updateEndChecks() {
    let unreceived = recorder.received.map { describe($0.action) }
    endChecks.withLock { $0.unreceived = unreceived }
  }
}

/// The facts a test store checks when it is dropped, kept where `deinit` can read them.
struct EndChecks: Sendable {
  let location: TestLocation
  var exhaustivity = Exhaustivity.on
  var unreceived: [String] = []
}

func describe(_ value: Any) -> String {
  render(value).joined(separator: "\n")
}
