import Dispatch
import Synchronization
internal import Transport

/// Hands a trace's records from the threads where things happen to the trace's own writer
/// thread, which turns them into events and writes them: on the path of an action, the trace
/// costs one append under a lock. The writer wakes once per batch, and at the end, when it
/// writes what is left and the file's closing, and ends.
final class TraceQueue: Sendable {
  private struct Pending {
    var records: [TraceRecord] = []
    var isFinishing = false
  }

  /// How many records wake the writer: enough that waking it is rare, few enough that a
  /// batch's bytes are written in a block or two.
  private static let batch = 256

  private let pending = Mutex(Pending())
  /// Used by the writer thread alone until it has ended, then read for its failure.
  private let events: Mutex<TraceEvents>
  private let wake = DispatchSemaphore(value: 0)
  /// Signalled once the writer has ended; each waiter passes it on to the next.
  private let ended = DispatchSemaphore(value: 0)

  /// Starts the writer thread, which writes into `events`.
  init(events: consuming sending TraceEvents) {
    self.events = Mutex(events)
    DetachedThread.run { [self] in write() }
  }

  /// Adds `record`, unless the trace is finished.
  func add(_ record: TraceRecord) {
    let isFull = pending.withLock { pending in
      guard !pending.isFinishing else { return false }
      pending.records.append(record)
      return pending.records.count == Self.batch
    }
    if isFull { wake.signal() }
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
      let isFinishing = pending.withLock { pending in
        swap(&pending.records, &batch)
        return pending.isFinishing
      }
      events.withLock { events in
        for record in batch { events.write(record) }
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
