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
        return handle(.frame(frame))
      } catch {
        return .ended(error)
      }
    }

    /// Handles what a caller that held the read side handed on.
    func handle(_ handed: ReadSideMachine.Handed) -> Outcome {
      switch handed {
      case let .frame(frame):
        guard self.frame(frame) else {
          return .ended(.malformed("the peer sent a message that is not part of the protocol"))
        }
        return .handled
      case let .end(error):
        return .ended(error)
      }
    }
  }

  init() {
    lane = Lane(jobs)
  }

  /// Starts reading `readSide` on a new thread. `idleWait` bounds each wait when nothing is
  /// due, so that a deadline set while the thread waits is never checked later than it falls.
  func start(reading readSide: ReadSide, idleWait: Duration, handlers: Handlers) {
    DetachedThread.run { [self] in run(readSide, idleWait: idleWait, handlers: handlers, spin: BriefSpin(budget: .zero)) }
  }

  /// Reads `readSide` on the calling thread until the connection ends, spinning briefly
  /// (`BriefSpin`) before each wait: the thread serves a peer that waits for each answer.
  func read(_ readSide: ReadSide, idleWait: Duration, handlers: Handlers) {
    run(readSide, idleWait: idleWait, handlers: handlers, spin: BriefSpin())
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

  /// Reads whenever it holds the read side (a caller may hold it while the thread waits, to
  /// read its own reply), and runs the queued jobs in between.
  private func run(_ readSide: ReadSide, idleWait: Duration, handlers: Handlers, spin: BriefSpin) {
    var spin = spin
    jobs.readOnThisThread()
    var ending: TransportError?
    defer {
      readSide.end()
      finish(handlers, ending)
    }
    let connection = readSide.half.connection
    var socketIsReadable = false
    /// How long the next wait may last: until the nearest deadline, or `idleWait`.
    func waitBound() -> Duration {
      let now = ContinuousClock.now
      return handlers.nextDeadline().map { max($0 - now, .zero) } ?? idleWait
    }
    while true {
      runQueuedJobs()
      if case let .reads(handed) = readSide.threadTakes() {
        if let handed, case let .ended(error) = handlers.handle(handed) {
          ending = error
          return
        }
        if socketIsReadable { _ = connection.readAvailable() }
        socketIsReadable = false
        // Only a whole frame (or the end) is received here, so no read waits with the read
        // side held: a frame that comes in pieces is read as its pieces land.
        if connection.isReadyToReceive {
          if case let .ended(error) = handlers.handleNext(of: connection) {
            ending = error
            return
          }
          continue
        }
        let wait = waitBound()
        spin.wait(until: { connection.readAvailable() || !jobs.isEmpty }) {
          // A spin that read a whole frame (or what `receive()` must report) needs no wait,
          // nor does one that found a job: its wake-up is cleared before the job is taken, so
          // a job queued later wakes the next wait.
          if connection.isReadyToReceive { return }
          if !jobs.isEmpty {
            _ = bulkhead_wakeup_clear(jobs.wakeup)
            return
          }
          readSide.threadLetsGo()
          socketIsReadable = waitForSocketOrJob(readSide, wait)
        }
      } else {
        _ = waitForSocketOrJob(readSide, waitBound())
      }
      handlers.expire(.now)
    }
  }

  /// Waits without the read side: whether the socket became readable.
  private func waitForSocketOrJob(_ readSide: ReadSide, _ wait: Duration) -> Bool {
    let woken = readSide.wait(milliseconds: wait.roundedUpMilliseconds)
    if woken.wakeup { _ = bulkhead_wakeup_clear(jobs.wakeup) }
    return woken.socket
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
