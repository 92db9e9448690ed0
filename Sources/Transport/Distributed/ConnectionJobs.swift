import CSystem
import Dispatch
#if canImport(Glibc)
  import Glibc
#endif
import Synchronization

/// The jobs waiting for a connection's reading thread, and how to wake it: shared by the
/// thread's task executor and its serial `Lane`.
final class JobQueue: Sendable {
  struct Job: Sendable {
    let job: UnownedJob
    /// Enqueued on the lane: runs isolated to the actors bound to the connection.
    let isolated: Bool
  }

  private struct State {
    var jobs: [Job] = []
    var isReading = true
    /// The lane, to run its jobs isolated to it after the thread has ended.
    var lane: UnownedSerialExecutor?
  }

  private let state = Mutex(State())
  /// Wakes the reading thread when a job arrives from another thread.
  let wakeup = bulkhead_wakeup_create()
  private let readerThread = Atomic<UInt>(0)
  /// Runs the lane's jobs one at a time once no thread reads the connection.
  private let afterEnd = DispatchQueue(label: "bulkhead.connection-ended")

  /// Marks the calling thread as the reader.
  func readOnThisThread() {
    readerThread.store(UInt(pthread_self()), ordering: .relaxed)
  }

  var isReaderThread: Bool { readerThread.load(ordering: .relaxed) == UInt(pthread_self()) }

  func runAfterEnd(isolatedTo lane: UnownedSerialExecutor) {
    state.withLock { $0.lane = lane }
  }

  func enqueue(_ job: UnownedJob, isolated: Bool) {
    let job = Job(job: job, isolated: isolated)
    let (isQueued, lane) = state.withLock { state in
      // Without a wakeup descriptor (the process is out of them) a queued job could wait
      // for the next frame: such a thread hands its jobs on instead.
      guard state.isReading, wakeup >= 0 else { return (false, state.lane) }
      state.jobs.append(job)
      // The reader runs its queue before it waits again; anyone else must wake it. Signalled
      // under the lock, so the descriptor cannot be closed in between.
      if !isReaderThread { _ = bulkhead_wakeup_signal(wakeup) }
      return (true, state.lane)
    }
    if !isQueued { handOn(job, lane: lane) }
  }

  var isEmpty: Bool { state.withLock { $0.jobs.isEmpty } }

  /// The jobs queued so far, or nil when there are none.
  func takeAll() -> [Job]? {
    state.withLock { state in
      guard !state.jobs.isEmpty else { return nil }
      defer { state.jobs.removeAll(keepingCapacity: true) }
      return state.jobs
    }
  }

  /// No thread reads any more: hands the queued jobs and every later one on.
  func stop() {
    // A later thread could be given the same identifier.
    readerThread.store(0, ordering: .relaxed)
    let (jobs, lane) = state.withLock { state in
      defer { state.jobs = [] }
      if state.isReading {
        state.isReading = false
        close(wakeup)
      }
      return (state.jobs, state.lane)
    }
    for job in jobs { handOn(job, lane: lane) }
  }

  private func handOn(_ job: Job, lane: UnownedSerialExecutor?) {
    guard job.isolated, let lane else { return globalConcurrentExecutor.enqueue(ExecutorJob(job.job)) }
    afterEnd.async { job.job.runSynchronously(on: lane) }
  }
}

/// The serial executor of the actors bound to one connection (`ConnectionBound`): their jobs
/// run on the thread that reads the connection, between frames, one at a time; after the
/// connection ends, on a serial queue.
package final class Lane: SerialExecutor {
  private let jobs: JobQueue

  init(_ jobs: JobQueue) {
    self.jobs = jobs
    jobs.runAfterEnd(isolatedTo: asUnownedSerialExecutor())
  }

  package func enqueue(_ job: consuming ExecutorJob) {
    jobs.enqueue(UnownedJob(job), isolated: true)
  }

  /// Whether code runs isolated to the lane: on the reading thread, which runs nothing else
  /// while it runs a call or a job of the lane.
  package func isIsolatingCurrentContext() -> Bool? {
    jobs.isReaderThread
  }

  package func checkIsolated() {
    precondition(jobs.isReaderThread, "code isolated to a connection's actors ran off its reading thread")
  }
}
