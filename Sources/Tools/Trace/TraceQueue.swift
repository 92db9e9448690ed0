import Dispatch
import Synchronization
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
internal import Transport

/// Hands a trace's records from the threads where things happen to the trace's own writer
/// thread, which turns them into events and writes them: on the path of an action, the trace
/// costs one append under a lock. The writer wakes once per batch, and at the end, when it
/// writes what is left and the file's closing, and ends.
///
/// The writer runs at the lowest priority and offers its core back every few records, so
/// that on a core it shares with the host's threads it never holds up an action; a host busy
/// for so long that `backlog` records wait is made to wait for the writer to take them, so
/// that what waits stays bounded.
final class TraceQueue: Sendable {
  private struct Pending {
    var records: [TraceRecord] = []
    var isFinishing = false
    /// Threads waiting for the writer to take a full backlog.
    var waiting = 0
  }

  /// How many records wake the writer: enough that waking it is rare, few enough that a
  /// batch's bytes are written in a block or two.
  private static let batch = 256

  /// How many records may wait for the writer before whoever adds one waits with them.
  private static let backlog = 64 * batch

  /// How many records the writer formats before it offers its core to another thread: a few
  /// microseconds' work. A host thread waiting for a worker's reply spins with
  /// `sched_yield()`, which on a shared core hands the core to the writer, however low its
  /// priority, for its whole time slice (hundreds of microseconds, a batch's work): the spin
  /// took that for a busy core and stopped, and the host slept through its next waits.
  private static let recordsBetweenYields = 4

  private let pending = Mutex(Pending())
  /// Used by the writer thread alone until it has ended, then read for its failure.
  private let events: Mutex<TraceEvents>
  private let wake = DispatchSemaphore(value: 0)
  /// Signalled once for each thread that waited, when the writer has taken the backlog.
  private let taken = DispatchSemaphore(value: 0)
  /// Signalled once the writer has ended; each waiter passes it on to the next.
  private let ended = DispatchSemaphore(value: 0)

  /// Starts the writer thread, which writes into `events`.
  init(events: consuming sending TraceEvents) {
    self.events = Mutex(events)
    DetachedThread.run(inBackground: true) { [self] in write() }
  }

  /// Adds `record`, unless the trace is finished; waits while `backlog` records wait.
  func add(_ record: TraceRecord) {
    let (isFull, mustWait) = pending.withLock { pending in
      guard !pending.isFinishing else { return (false, false) }
      pending.records.append(record)
      let mustWait = pending.records.count >= Self.backlog
      if mustWait { pending.waiting += 1 }
      return (pending.records.count == Self.batch || mustWait, mustWait)
    }
    if isFull { wake.signal() }
    if mustWait { taken.wait() }
  }

  /// Waits until the writer has written every record added so far and the file's closing,
  /// and has ended; records added later are dropped. Every call waits, the first one asks.
  ///
  /// - Returns: the first write that failed, if any did.
  func finish() -> TraceFile.Failure? {
    let isFirst = pending.withLock { pending in
      defer { pending.isFinishing = true }
      return !pending.isFinishing
    }
    if isFirst { wake.signal() }
    ended.wait()
    ended.signal()
    return events.withLock { $0.failure }
  }

  /// The writer thread: takes all the records there are each time it is woken, in the order
  /// they came, until it is finishing.
  private func write() {
    var batch: [TraceRecord] = []
    while true {
      wake.wait()
      let (isFinishing, waiting) = pending.withLock { pending in
        swap(&pending.records, &batch)
        defer { pending.waiting = 0 }
        return (pending.isFinishing, pending.waiting)
      }
      for _ in 0..<waiting { taken.signal() }
      events.withLock { events in
        for (index, record) in batch.enumerated() {
          events.write(record)
          if index % Self.recordsBetweenYields == Self.recordsBetweenYields - 1 { sched_yield() }
        }
        if isFinishing { events.finish() }
      }
      batch.removeAll(keepingCapacity: true)
      if isFinishing {
        ended.signal()
        return
      }
    }
  }
}
