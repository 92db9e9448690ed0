import Dispatch
import Synchronization

/// Runs a remote call from synchronous code, such as a reducer, and returns its result.
///
/// The call starts at once on this thread (`Task.immediate`). On a system read by its callers
/// (`SocketActorSystem.Reading.byCaller`) it never suspends: it writes the request and reads
/// the reply right here, and is over before the task would have been scheduled. A call that
/// does suspend (on a system read by its thread) is waited for, blocking this thread.
///
/// ```swift
/// let sum = try callSynchronously { try await calculator.add(2, 3) }
/// ```
package func callSynchronously<Result: Sendable>(
  _ call: sending @escaping @isolated(any) () async throws -> Result
) throws -> Result {
  let outcome = SynchronousOutcome<Result>()
  Task.immediate {
    do {
      outcome.finish(.success(try await call()))
    } catch {
      outcome.finish(.failure(error))
    }
  }
  return try outcome.wait().get()
}

/// The outcome of a call run by `callSynchronously`: there already when the call did not
/// suspend, or waited for.
private final class SynchronousOutcome<Value: Sendable>: Sendable {
  private let value = Mutex<Result<Value, any Error>?>(nil)
  private let arrived = DispatchSemaphore(value: 0)

  func finish(_ result: Result<Value, any Error>) {
    value.withLock { $0 = result }
    arrived.signal()
  }

  func wait() -> Result<Value, any Error> {
    if let result = value.withLock({ $0 }) { return result }
    arrived.wait()
    return value.withLock { $0 }!
  }
}
