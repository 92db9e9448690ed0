@_spi(Testing) import Bulkhead
import Synchronization
import Testing

/// Where the runtime warnings of one test store go — raised by its setup, its steps, its
/// effects, or a `Send` its effects kept and used later from any task. One raised in a task
/// of the test that made the store is recorded at once; one raised elsewhere (a detached task,
/// a worker's reading thread) is held until the test's own task reports it at its next step:
/// recorded there, a failure would not be the test's, since Swift Testing finds the running
/// test, and `withKnownIssue`, through task-locals.
///
/// ```swift
/// withRuntimeWarningHandler(inbox.handler(at: location)) { store.send(action) }
/// inbox.report()  // in the test's task
/// ```
final class WarningInbox: Sendable {
  private struct State {
    var held: [(warning: RuntimeWarning, location: TestLocation)] = []
    var isClosed = false
  }

  private let state = Mutex(State())
  /// The Swift Testing test that made the store; nil under XCTest, whose failures find their
  /// test from any thread.
  private let test = Test.current?.id

  /// A handler for the warnings of the step at `location`, which they are reported at.
  func handler(at location: TestLocation) -> @Sendable (RuntimeWarning) -> Void {
    { [self] warning in
      if let test, Test.current?.id == test { return reportIssue(warning.message, at: location) }
      let isClosed = state.withLock { state in
        if !state.isClosed { state.held.append((warning, location)) }
        return state.isClosed
      }
      // The test store is gone, and with it the test: printed, as a store outside tests does.
      if isClosed { RuntimeWarning.Handler.standardError.report(warning.message, at: warning.location) }
    }
  }

  /// Reports the warnings held so far as test failures; call it from the test's task.
  func report() {
    let held = state.withLock { state in
      defer { state.held = [] }
      return state.held
    }
    for (warning, location) in held { reportIssue(warning.message, at: location) }
  }

  /// Reports what is held, for the last time: the test store is going away.
  func close() {
    report()
    state.withLock { $0.isClosed = true }
  }
}
