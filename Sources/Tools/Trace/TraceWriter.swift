import Bulkhead
import BulkheadDistribution

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An instrument that writes what crosses a composition's boundaries as Chrome trace-event
/// JSON, which ui.perfetto.dev and chrome://tracing open: a process for the host and one for
/// each worker (named by its boundary), a slice for each reducer run on either side, a flow
/// arrow for each crossing from its sending slice to its receiving one, and instants for
/// starts, exits, restarts, stalls and lost effects (`TraceEvents`).
///
/// On the thread where a crossing happens, the trace only keeps its facts; a thread of the
/// trace's own formats and writes them, and ends at `finish()`.
///
/// ```swift
/// let trace = try TraceWriter(path: "run.json", host: "two-counters")
/// let composition = try Composition(root: App(), placement: placement, command: command, instrument: trace)
/// ...
/// composition.shutdown()
/// try trace.finish()
/// ```
public final class TraceWriter: BoundaryInstrument {
  private let queue: TraceQueue

  /// The trace's file.
  ///
  /// ```swift
  /// print("open \(trace.path) in ui.perfetto.dev")
  /// ```
  public let path: String

  /// Creates the trace file at `path` (replacing one that is there), naming the host's process
  /// after `host`.
  ///
  /// ```swift
  /// let trace = try TraceWriter(path: "run.json", host: "guestbook")
  /// ```
  public init(path: String, host: String) throws {
    let file = try TraceFile(path: path)
    self.path = path
    queue = TraceQueue(events: TraceEvents(file: file, host: host, pid: getpid(), origin: .now))
  }

  /// A trace dropped unfinished is finished, so that its thread ends and its file is whole.
  deinit {
    _ = queue.finish()
  }

  /// Writes everything heard so far and the end of the file, and ends the trace's thread;
  /// events after it are not written. Call it once the composition has shut down, and from a
  /// signal's handler before the process exits.
  ///
  /// - Throws: the first write that failed, if any did.
  ///
  /// ```swift
  /// composition.shutdown()
  /// try trace.finish()
  /// ```
  public func finish() throws {
    if let failure = queue.finish() { throw failure }
  }

  /// Slices are named after their actions: `BoundaryInstrument` asks, the composition reads it.
  public var wantsActionNames: Bool { true }

  public func remoteActionAnswered(_ trip: RemoteActionTrip) {
    queue.add(.remoteAction(trip))
  }

  public func effectActionProcessed(_ action: EffectActionTrip) {
    queue.add(.effectAction(action))
  }

  public func eventOccurred(_ event: BoundaryEvent, at instant: MonotonicInstant) {
    queue.add(.event(event, at: instant))
  }
}
