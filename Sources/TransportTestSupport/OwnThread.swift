import Transport

/// Runs `body`, which blocks (a process, a socket, a long computation), on a thread of its
/// own, and awaits it without holding a thread of the cooperative pool.
///
/// The pool has one thread per core: on a machine with two, two tests that block their
/// threads stop every async test of the process, whose next step waits behind them (a 30 s
/// watchdog fired at the first step of a chaos test while two patch tests computed). `body`
/// runs in the calling task, so `#expect` and task-local values work in it as anywhere.
///
/// ```swift
/// @Test func aBigPatch() async throws {
///   try await onOwnThread { #expect(try StatePatch.make(old, new).byteCount < 64) }
/// }
/// ```
package func onOwnThread<T: Sendable, Failure: Error>(
  _ body: () throws(Failure) -> T
) async throws(Failure) -> T {
  try await withTaskExecutorPreference(OwnThreadExecutor()) { () async throws(Failure) -> T in
    try body()
  }
}

/// Runs each job it is given on a new thread: the job that runs the body, and any job of its
/// task that comes back before it ends.
private final class OwnThreadExecutor: TaskExecutor {
  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    DetachedThread.run { job.runSynchronously(on: executor) }
  }
}
