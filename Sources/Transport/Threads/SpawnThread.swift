import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The one thread of this process that starts child processes. It starts the first time it
/// is needed and never exits.
///
/// Why: on Linux a child's parent-death signal (`PR_SET_PDEATHSIG`, which workers set) fires
/// when the *thread* that started the child exits, not the process. A worker started from a
/// short-lived thread, or from a Dispatch or cooperative-pool thread that the runtime may
/// retire, would be killed as soon as that thread goes. Starting every child here ties the
/// signal to the life of the process.
///
/// The thread blocks every signal, as Dispatch's threads do, so that it never takes a signal
/// meant for the process (a `DispatchSource` for SIGINT reads those from a signalfd, and a
/// thread that unblocked them would steal them). Children inherit that mask; a worker resets
/// it as it starts (`WorkerLaunch.receive()`).
///
/// ```swift
/// let pid = try SpawnThread.run { () throws -> pid_t in
///   try process.run()
///   return process.processIdentifier
/// }
/// ```
package enum SpawnThread {
  private final class Job: Sendable {
    let body: @Sendable () -> Void
    let done = DispatchSemaphore(value: 0)
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }

  /// A value handed from the spawn thread back to the caller, who reads it only after the
  /// job's `done` semaphore says it is there.
  private final class Outcome<Value: Sendable, Failure: Error>: Sendable {
    let result = Mutex<Result<Value, Failure>?>(nil)
  }

  private struct Queue {
    var jobs: [Job] = []
    var started = false
    var thread: pthread_t?
  }

  private static let queue = Mutex(Queue())
  /// Signalled once per job queued; the thread waits on it when it has nothing to do.
  private static let pending = DispatchSemaphore(value: 0)

  /// Runs `body` on the spawn thread and returns what it returned or throws what it threw.
  /// The calling thread waits meanwhile. Called on the spawn thread itself, runs `body` at
  /// once.
  package static func run<Value: Sendable, Failure: Error>(
    _ body: @escaping @Sendable () throws(Failure) -> Value
  ) throws(Failure) -> Value {
    if isCurrent { return try body() }
    let outcome = Outcome<Value, Failure>()
    let job = Job {
      let result = Result { () throws(Failure) -> Value in try body() }
      outcome.result.withLock { $0 = result }
    }
    let start = queue.withLock { queue in
      queue.jobs.append(job)
      defer { queue.started = true }
      return !queue.started
    }
    // If no thread can be made, DetachedThread falls back to a Dispatch thread, which this
    // loop then never gives back (so the runtime cannot retire it either).
    if start { DetachedThread.run { serve() } }
    pending.signal()
    job.done.wait()
    // The job stored its result before it signalled `done`.
    guard let result = outcome.result.withLock({ $0 }) else {
      preconditionFailure("a spawn job finished without a result")
    }
    return try result.get()
  }

  /// Whether the calling thread is the spawn thread.
  package static var isCurrent: Bool {
    let current = pthread_self()
    return queue.withLock { queue in queue.thread.map { pthread_equal($0, current) != 0 } ?? false }
  }

  private static func serve() {
    var all = sigset_t()
    sigfillset(&all)
    pthread_sigmask(SIG_SETMASK, &all, nil)
    let current = pthread_self()
    queue.withLock { $0.thread = current }
    while true {
      pending.wait()
      guard let job = queue.withLock({ $0.jobs.isEmpty ? nil : $0.jobs.removeFirst() }) else { continue }
      job.body()
      job.done.signal()
    }
  }
}
