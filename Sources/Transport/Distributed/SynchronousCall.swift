import Dispatch
import Synchronization

/// Runs a remote call from synchronous code, such as a reducer, and returns its result.
///
/// The call starts at once on this thread (`Task.immediate`), even from an actor such as the
/// main actor, where a task that is not isolated to it would otherwise be queued for another
/// thread: its jobs go to `InlineExecutor`, which runs them where they are enqueued. On a
/// system read by its callers (`SocketActorSystem.Reading.byCaller`) a call never suspends:
/// it writes the request and reads the reply right here. A call that does suspend (on a system
/// read by its thread) is waited for, blocking this thread; it goes on where it is resumed.
///
/// ```swift
/// let sum = try callSynchronously { try await calculator.add(2, 3) }
/// ```
package func callSynchronously<Result: Sendable>(
  _ call: sending @escaping @isolated(any) () async throws -> Result
) throws -> Result {
  let outcome = SynchronousOutcome<Result>()
  Task.immediate(executorPreference: InlineExecutor.shared) {
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

/// A task executor that runs each job at once, on the thread that enqueues it: the first job
/// of a `callSynchronously` task on the calling thread, a job resumed later on the thread that
/// resumed it. Only for tasks that do little between their waits.
final class InlineExecutor: TaskExecutor {
  static let shared = InlineExecutor()

  func enqueue(_ job: consuming ExecutorJob) {
    job.runSynchronously(on: asUnownedTaskExecutor())
  }
}
