import CSystem
#if canImport(Glibc)
  import Glibc
#endif
import Synchronization

/// The thread that reads a `SocketActorSystem`'s connection, which is also a `TaskExecutor`,
/// and whose `lane` is the serial executor of the actors bound to the connection.
///
/// Calls from the peer run on it, and a task that prefers it resumes on the very thread that
/// read its reply: a remote call then costs no hop between threads, only the socket's own
/// round trip.
///
/// ```swift
/// await withTaskExecutorPreference(system.executor) {
///   for number in 0..<1_000 { _ = try await calculator.add(number, 1) }
/// }
/// ```
///
/// Once the connection ends, jobs go to the global concurrent executor, and jobs of the lane
/// to a serial queue.
package final class ConnectionThread: TaskExecutor, Sendable {
  private let jobs = JobQueue()

  /// The serial executor of the actors bound to this connection (`ConnectionBound`): their
  /// jobs run on this thread between frames, and a call this thread reads for one of them
  /// runs at once, isolated to it, with no task.
  package let lane: Lane

  /// What the thread does with what it reads.
  struct Handlers: Sendable {
    /// Handles one frame; false ends the connection.
    let frame: @Sendable (Frame) -> Bool
    /// The next instant something is due, if any.
    let nextDeadline: @Sendable () -> ContinuousClock.Instant?
    /// Runs whatever is due by now.
    let expire: @Sendable (ContinuousClock.Instant) -> Void
    /// Runs once, when the connection has ended: with the error that ended it, if any.
    let end: @Sendable (TransportError?) -> Void

    /// What came of handling the next frame.
    enum Outcome {
      case handled
      /// The connection ended: the peer closed it between frames (nil), or with this error.
      case ended(TransportError?)
    }

    /// Receives the next frame of `connection`, which may wait for it, and handles it.
    func handleNext(of connection: FramedConnection) -> Outcome {
      do throws(TransportError) {
        guard let frame = try connection.receive() else { return .ended(nil) }
        guard self.frame(frame) else {
          return .ended(.malformed("the peer sent a message that is not part of the protocol"))
        }
        return .handled
      } catch {
        return .ended(error)
      }
    }
  }

  init() {
    lane = Lane(jobs)
  }

  /// Starts reading `reader` on a new thread. `idleWait` bounds each wait when nothing is
  /// due, so that a deadline set while the thread waits is never checked later than it falls.
  func start(reading reader: ConnectionHalf, idleWait: Duration, handlers: Handlers) {
    DetachedThread.run { [self] in run(reader, idleWait: idleWait, handlers: handlers, spin: BriefSpin(budget: .zero)) }
  }

  /// Reads `reader` on the calling thread until the connection ends, spinning briefly
  /// (`BriefSpin`) before each wait: the thread serves a peer that waits for each answer.
  func read(_ reader: ConnectionHalf, idleWait: Duration, handlers: Handlers) {
    run(reader, idleWait: idleWait, handlers: handlers, spin: BriefSpin())
  }

  /// Hands every job to the global executor from now on: for a connection that no thread of
  /// this kind reads.
  func stop() {
    jobs.stop()
  }

  /// For a thread that reads many connections and runs this executor's jobs between them
  /// (`ListenerLoop`, `ConnectionWatch`): makes the calling thread the one that runs them.
  func runJobsOnThisThread() {
    jobs.readOnThisThread()
  }

  /// Readable when a job was queued from another thread: for the `poll` of that thread.
  var wakeup: Int32 { jobs.wakeup }

  /// Clears the wake-up, then runs the jobs queued: one queued after the clear wakes the next
  /// `poll`, and one queued by a job runs before this returns.
  func runJobs() {
    _ = bulkhead_wakeup_clear(jobs.wakeup)
    runQueuedJobs()
  }

  /// Whether the caller runs on this thread.
  package var isCurrent: Bool { jobs.isReaderThread }

  /// Whether jobs wait for this thread: a call read now must not overtake them.
  var hasQueuedJobs: Bool { !jobs.isEmpty }

  package func enqueue(_ job: consuming ExecutorJob) {
    jobs.enqueue(UnownedJob(job), isolated: false)
  }

  private func run(_ reader: ConnectionHalf, idleWait: Duration, handlers: Handlers, spin: BriefSpin) {
    var spin = spin
    jobs.readOnThisThread()
    var ending: TransportError?
    defer { finish(handlers, ending) }
    let connection = reader.connection
    /// Handles the next frame; false when the connection ended or must end.
    func handleNext() -> Bool {
      guard case let .ended(error) = handlers.handleNext(of: connection) else { return true }
      ending = error
      return false
    }
    while true {
      runQueuedJobs()
      if connection.isReadyToReceive {
        guard handleNext() else { return }
        continue
      }
      var descriptors = [
        pollfd(fd: connection.socket.descriptor, events: Int16(POLLIN), revents: 0),
        pollfd(fd: jobs.wakeup, events: Int16(POLLIN), revents: 0),
      ]
      let now = ContinuousClock.now
      let wait = handlers.nextDeadline().map { max($0 - now, .zero) } ?? idleWait
      let ready = spin.wait(until: { connection.readAvailable() || !jobs.isEmpty }) { () -> Int32 in
        // A spin that read a whole frame (or what `receive()` must report) needs no poll,
        // nor does one that found a job: its wake-up is cleared before the job is taken, so
        // a job queued later wakes the next poll.
        if connection.isReadyToReceive { return 0 }
        if !jobs.isEmpty {
          _ = bulkhead_wakeup_clear(jobs.wakeup)
          return 0
        }
        return poll(&descriptors, 2, wait.roundedUpMilliseconds)
      }
      guard ready >= 0 || errno == EINTR else { return }
      if descriptors[1].revents != 0 { _ = bulkhead_wakeup_clear(jobs.wakeup) }
      if descriptors[0].revents != 0 || connection.isReadyToReceive {
        guard handleNext() else { return }
      }
      handlers.expire(.now)
    }
  }

  /// Runs the jobs queued, leaving the wake-up as it is: for the thread's own jobs, which
  /// signal none.
  func runQueuedJobs() {
    while let batch = jobs.takeAll() {
      for job in batch {
        if job.isolated {
          job.job.runSynchronously(isolatedTo: lane.asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        } else {
          job.job.runSynchronously(on: asUnownedTaskExecutor())
        }
      }
    }
  }

  /// Ends the connection's work, then hands every job, queued or still to come, on.
  private func finish(_ handlers: Handlers, _ error: TransportError?) {
    handlers.end(error)
    jobs.stop()
  }
}

extension Duration {
  /// A wait in whole milliseconds for `poll`, rounded up so that it never ends early.
  var roundedUpMilliseconds: Int32 {
    let (seconds, attoseconds) = components
    return Int32(clamping: seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
  }
}
