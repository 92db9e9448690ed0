import Dispatch
import Synchronization
import Transport

/// Runs `body`, which blocks (a process, a socket, a long computation), on a thread of its
/// own, and awaits it without holding a thread of the cooperative pool.
///
/// The pool has one thread per core: on a machine with two, two tests that block their
/// threads stop every async test of the process, whose next step waits behind them (a 30 s
/// watchdog fired at the first step of a chaos test while two patch tests computed). `body`
/// runs in the calling task, so `#expect` and task-local values work in it as anywhere; an
/// async body runs each of its steps on that thread, unless it is isolated to an actor.
///
/// ```swift
/// @Test func aBigPatch() async throws {
///   try await onOwnThread { #expect(try StatePatch.make(old, new).byteCount < 64) }
/// }
/// ```
package func onOwnThread<T: Sendable, Failure: Error>(
  _ body: () async throws(Failure) -> T
) async throws(Failure) -> T {
  let thread = OwnThreadExecutor()
  defer { thread.finish() }
  return try await withTaskExecutorPreference(thread, operation: body)
}

/// A thread of its own that runs the jobs it is given one at a time, in order, until told to
/// finish.
private final class OwnThreadExecutor: TaskExecutor {
  private let state = Mutex<(jobs: [UnownedJob], isFinished: Bool)>(([], false))
  /// Signalled once for each job enqueued and once at `finish()`.
  private let woken = DispatchSemaphore(value: 0)

  init() {
    DetachedThread.run { [self] in
      while let job = next() { job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    state.withLock { $0.jobs.append(job) }
    woken.signal()
  }

  /// Ends the thread once its queue is empty: call when no more jobs can come.
  func finish() {
    state.withLock { $0.isFinished = true }
    woken.signal()
  }

  /// The next job, waited for; nil once finished and the queue is empty.
  private func next() -> UnownedJob? {
    while true {
      woken.wait()
      let (job, isFinished) = state.withLock { state in
        (state.jobs.isEmpty ? nil : state.jobs.removeFirst(), state.isFinished)
      }
      if let job { return job }
      if isFinished { return nil }
    }
  }
}
