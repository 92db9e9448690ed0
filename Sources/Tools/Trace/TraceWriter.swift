import Bulkhead
import BulkheadDistribution

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import Synchronization

/// An instrument that writes what crosses a composition's boundaries as Chrome trace-event
/// JSON, which ui.perfetto.dev and chrome://tracing open: a process for the host and one for
/// each worker (named by its boundary), a slice for each reducer run on either side, a flow
/// arrow for each crossing from its sending slice to its receiving one, and instants for
/// starts, exits, restarts, stalls and lost effects.
///
/// A worker's slice is drawn from the handling time it sends back with its reply, in the middle
/// of the host's round trip; the time a worker's effect sent an action is not measured, so its
/// sending slice is drawn ending at the action's arrival.
///
/// ```swift
/// let trace = try TraceWriter(path: "run.json", host: "two-counters")
/// let composition = try Composition(root: App(), placement: placement, command: command, instrument: trace)
/// ...
/// composition.shutdown()
/// try trace.finish()
/// ```
public final class TraceWriter: BoundaryInstrument {
  private struct State: ~Copyable {
    var file: TraceFile
    var named: Set<Int32> = []
    var lanes: [LaneGroup: [UInt64]] = [:]
    var nextFlow: UInt64 = 0
    /// The worker of each boundary that exited last: the one whose effects a loss is about.
    var exited: [String: Int32] = [:]
  }

  /// Tracks within a process whose slices never overlap; a slice that would overlap the last
  /// one of every lane so far opens a new lane.
  private struct LaneGroup: Hashable {
    let pid: Int32
    let kind: Kind

    enum Kind: Int {
      case remoteActions = 1, effectActions = 1_000, reducer = 2_000, effects = 3_000
      var title: String {
        switch self {
        case .remoteActions: "remote actions"
        case .effectActions: "effect actions from workers"
        case .reducer: "reducer"
        case .effects: "effects"
        }
      }
    }
  }

  private let state: Mutex<State>
  private let hostPid: Int32
  /// Where the trace's time starts.
  private let origin = MonotonicInstant.now

  /// Creates the trace file at `path` (replacing one that is there), naming the host's process
  /// after `host`.
  ///
  /// ```swift
  /// let trace = try TraceWriter(path: "run.json", host: "guestbook")
  /// ```
  public init(path: String, host: String) throws {
    let pid = getpid()
    var file = try TraceFile(path: path)
    file.append(Self.processName(pid, "host: \(host)", sortIndex: 0))
    hostPid = pid
    state = Mutex(State(file: file, named: [pid]))
  }

  /// The trace's file.
  ///
  /// ```swift
  /// print("open \(trace.path) in ui.perfetto.dev")
  /// ```
  public var path: String { state.withLock { $0.file.path } }

  /// Writes the end of the file; events after it are not written. Call it once the composition
  /// has shut down, and from a signal's handler before the process exits.
  ///
  /// - Throws: the first write that failed, if any did.
  ///
  /// ```swift
  /// composition.shutdown()
  /// try trace.finish()
  /// ```
  public func finish() throws {
    let failure = state.withLock { state in
      state.file.finish()
      return state.file.failure
    }
    if let failure { throw failure }
  }

  /// Slices are named after their actions: `BoundaryInstrument` asks, the composition reads it.
  public var wantsActionNames: Bool { true }

  public func remoteActionAnswered(_ trip: RemoteActionTrip) {
    let (start, end) = (trip.start.nanoseconds, trip.start.nanoseconds + trip.nanoseconds)
    let handling = min(trip.workerNanoseconds, end - start)
    let workerStart = start + (end - start - handling) / 2
    let workerEnd = workerStart + handling
    var args = [
      "worker_pid": "\(trip.pid)", "worker_index": "\(trip.worker)", "bytes_sent": "\(trip.bytesSent)",
      "bytes_received": "\(trip.bytesReceived)", "worker_us": micro(handling, relative: false),
    ]
    if let bytes = trip.hostPatchBytes { args["host_patch_bytes"] = "\(bytes)" }
    if let bytes = trip.workerPatchBytes { args["worker_patch_bytes"] = "\(bytes)" }
    let name = trip.action.map { "\(trip.boundary): \($0)" } ?? trip.boundary
    state.withLock { state in
      nameWorker(&state, trip.pid, boundary: trip.boundary)
      let host = lane(&state, LaneGroup(pid: hostPid, kind: .remoteActions), from: start, to: end)
      let worker = lane(&state, LaneGroup(pid: trip.pid, kind: .reducer), from: workerStart, to: workerEnd)
      state.file.append(slice(name, category: "remote", on: host, from: start, to: end, args: args))
      state.file.append(slice("reduce", category: "worker", on: worker, from: workerStart, to: workerEnd, args: [:]))
      // A nanosecond inside each slice, so that each arrow binds to the slice it leaves or reaches.
      let (hostIn, workerIn) = (min((end - start) / 2, 1), min(handling / 2, 1))
      flow(&state, "request", from: host, at: start + hostIn, to: worker, at: workerStart + workerIn)
      flow(&state, "reply", from: worker, at: workerEnd - workerIn, to: host, at: end - hostIn)
    }
  }

  public func effectActionProcessed(_ action: EffectActionTrip) {
    let (arrived, processed) = (action.arrived.nanoseconds, action.arrived.nanoseconds + action.nanoseconds)
    // A microsecond's sliver for the worker's send, which the worker does not time.
    let sent = arrived >= 1_000 ? arrived - 1_000 : 0
    let name = action.action.map { "\(action.boundary) effect: \($0)" } ?? "\(action.boundary) effect"
    let args = [
      "worker_pid": "\(action.pid)", "worker_index": "\(action.worker)", "bytes": "\(action.bytes)",
      "precomputed": "\(action.tookOutcome)",
    ]
    state.withLock { state in
      nameWorker(&state, action.pid, boundary: action.boundary)
      let worker = lane(&state, LaneGroup(pid: action.pid, kind: .effects), from: sent, to: arrived)
      let host = lane(&state, LaneGroup(pid: hostPid, kind: .effectActions), from: arrived, to: processed)
      state.file.append(slice("effect sends action", category: "worker", on: worker, from: sent, to: arrived, args: [:]))
      state.file.append(slice(name, category: "effect", on: host, from: arrived, to: processed, args: args))
      let hostIn = min((processed - arrived) / 2, 1)
      flow(&state, "effect action", from: worker, at: (sent + arrived) / 2, to: host, at: arrived + hostIn)
    }
  }

  public func eventOccurred(_ event: BoundaryEvent, at instant: MonotonicInstant) {
    // An inner worker's event goes on the inner worker's own process, named with its depth
    // and the boundary whose worker started it: the trace shows the tree.
    let parent: String? = if case let .nested(parent, _) = event { parent } else { nil }
    let depth = event.depth
    let event = event.innermost
    func nameWorker(_ state: inout State, _ pid: Int32, boundary: String) {
      self.nameWorker(&state, pid, boundary: parent.map { "\(boundary) (depth \(depth), started by \($0)'s worker)" } ?? boundary)
    }
    state.withLock { state in
      let pid: Int32
      let name: String
      switch event {
      case let .workerStarted(boundary, worker):
        nameWorker(&state, worker, boundary: boundary)
        (pid, name) = (worker, "started")
      case let .workerExited(boundary, worker):
        state.exited[boundary] = worker
        (pid, name) = (worker, "exited")
      case let .workerRetired(_, worker): (pid, name) = (worker, "retired")
      case let .workerRestarted(boundary, worker, _):
        nameWorker(&state, worker, boundary: boundary)
        (pid, name) = (worker, "restarted")
      case let .workerStalled(_, worker, _): (pid, name) = (worker, "stalled")
      case let .limitExceeded(_, worker, _): (pid, name) = (worker, "exceeded its limit")
      case let .effectsLost(boundary, count): (pid, name) = (state.exited[boundary] ?? hostPid, "\(count) effect(s) lost")
      case .connectionRefused: (pid, name) = (hostPid, "connection refused")
      case .boundaryFailed: (pid, name) = (hostPid, "boundary failed")
      case .actionFailed: (pid, name) = (hostPid, "action failed")
      case let .moved(_, residence, _): (pid, name) = (hostPid, "moved to the \(residence)")
      case .nested: (pid, name) = (hostPid, "event")  // `innermost` is never nested
      }
      state.file.append(
        #""name":\#(jsonString(name)),"cat":"event","ph":"i","s":"p","pid":\#(pid),"tid":0,"ts":\#(micro(instant.nanoseconds)),"#
          + #""args":{"boundary":\#(jsonString(event.boundary)),"event":\#(jsonString(event.description))}"#)
    }
  }

  /// A thread of a process in the trace.
  private struct Track {
    let pid: Int32
    let tid: Int
  }

  /// The lane of `group` free from `start`, named in the trace the first time it is used.
  private func lane(_ state: inout State, _ group: LaneGroup, from start: UInt64, to end: UInt64) -> Track {
    var ends = state.lanes[group] ?? []
    let index = ends.firstIndex { $0 <= start } ?? ends.count
    if index == ends.count {
      ends.append(end)
      let title = index == 0 ? group.kind.title : "\(group.kind.title) \(index + 1)"
      state.file.append(
        #""name":"thread_name","ph":"M","pid":\#(group.pid),"tid":\#(group.kind.rawValue + index),"args":{"name":\#(jsonString(title))}"#)
    } else {
      ends[index] = end
    }
    state.lanes[group] = ends
    return Track(pid: group.pid, tid: group.kind.rawValue + index)
  }

  /// Names the process of worker `pid` after its boundary, the first time it appears.
  private func nameWorker(_ state: inout State, _ pid: Int32, boundary: String) {
    guard state.named.insert(pid).inserted else { return }
    state.file.append(Self.processName(pid, "worker: \(boundary)", sortIndex: 1))
  }

  private static func processName(_ pid: Int32, _ name: String, sortIndex: Int) -> String {
    #""name":"process_name","ph":"M","pid":\#(pid),"args":{"name":\#(jsonString(name))}},"#
      + #"{"name":"process_sort_index","ph":"M","pid":\#(pid),"args":{"sort_index":\#(sortIndex)}"#
  }

  /// A slice; `args` are JSON values already (numbers, `true`).
  private func slice(
    _ name: String, category: String, on track: Track, from start: UInt64, to end: UInt64, args: [String: String]
  ) -> String {
    let members = args.sorted { $0.key < $1.key }.map { "\(jsonString($0.key)):\($0.value)" }
    return #""name":\#(jsonString(name)),"cat":"\#(category)","ph":"X","pid":\#(track.pid),"tid":\#(track.tid),"#
      + #""ts":\#(micro(start)),"dur":\#(micro(end >= start ? end - start : 0, relative: false)),"#
      + #""args":{\#(members.joined(separator: ","))}"#
  }

  /// An arrow from the slice of `source` around `start` to the slice of `target` around `end`.
  private func flow(
    _ state: inout State, _ name: String, from source: Track, at start: UInt64, to target: Track, at end: UInt64
  ) {
    state.nextFlow += 1
    let common = #""name":\#(jsonString(name)),"cat":"crossing","id":\#(state.nextFlow)"#
    state.file.append(#"\#(common),"ph":"s","pid":\#(source.pid),"tid":\#(source.tid),"ts":\#(micro(start))"#)
    state.file.append(#"\#(common),"ph":"f","bp":"e","pid":\#(target.pid),"tid":\#(target.tid),"ts":\#(micro(end))"#)
  }

  /// `nanoseconds` as microseconds with three decimals, from the trace's origin unless
  /// `relative` is false.
  private func micro(_ nanoseconds: UInt64, relative: Bool = true) -> String {
    let value = relative ? Int64(bitPattern: nanoseconds &- origin.nanoseconds) : Int64(nanoseconds)
    let sign = value < 0 ? "-" : ""
    let magnitude = value.magnitude
    let fraction = String(magnitude % 1_000)
    return "\(sign)\(magnitude / 1_000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
  }
}
