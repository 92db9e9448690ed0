@_spi(Testing) import Bulkhead
import Synchronization

/// The runtime warnings of one test store — raised by its steps, its effects, or a `Send` its
/// effects kept and used later from any task — held until the test's own task reports them at
/// its next step. Recorded from another task (a detached one, say), a failure would not be the
/// test's: Swift Testing finds the running test, and `withKnownIssue`, through task-locals.
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

  /// A handler for the warnings of the step at `location`, which they are reported at.
  func handler(at location: TestLocation) -> @Sendable (RuntimeWarning) -> Void {
    { [self] warning in
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
