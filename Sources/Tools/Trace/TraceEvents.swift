import BulkheadDistribution

/// The records of a trace as Chrome trace events in its file: a process for the host and one
/// for each worker (named by its boundary), a slice for each reducer run on either side, a
/// flow arrow for each crossing from its sending slice to its receiving one, and instants for
/// starts, exits, restarts, stalls and lost effects. Made on the trace's writer thread, in the
/// order the records came.
///
/// A worker's slice is drawn from the handling time it sends back with its reply, in the middle
/// of the host's round trip; the time a worker's effect sent an action is not measured, so its
/// sending slice is drawn ending at the action's arrival.
struct TraceEvents: ~Copyable {
  private var file: TraceFile
  private let hostPid: Int32
  /// Where the trace's time starts.
  private let origin: MonotonicInstant
  private var named: Set<Int32> = []
  private var lanes: [LaneGroup: [UInt64]] = [:]
  private var nextFlow: UInt64 = 0
  /// The worker of each boundary that exited last: the one whose effects a loss is about.
  private var exited: [String: Int32] = [:]

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

  /// A thread of a process in the trace.
  private struct Track {
    let pid: Int32
    let tid: Int
  }

  /// Events in `file`, starting with the host's process, `pid`, named after `host`.
  init(file: consuming TraceFile, host: String, pid: Int32, origin: MonotonicInstant) {
    self.file = file
    hostPid = pid
    self.origin = origin
    named = [pid]
    nameProcess(pid, "host: ", host, sortIndex: 0)
  }

  var path: String { file.path }

  /// The first write that failed, if any did.
  var failure: TraceFile.Failure? { file.failure }

  /// Writes the end of the file; later records are not written.
  mutating func finish() {
    file.finish()
  }

  mutating func write(_ record: TraceRecord) {
    switch record {
    case let .remoteAction(trip): write(trip)
    case let .effectAction(action): write(action)
    case let .event(event, instant): write(event, at: instant)
    }
  }

  private mutating func write(_ trip: RemoteActionTrip) {
    let (start, end) = (trip.start.nanoseconds, trip.start.nanoseconds + trip.nanoseconds)
    let handling = min(trip.workerNanoseconds, end - start)
    let workerStart = start + (end - start - handling) / 2
    let workerEnd = workerStart + handling
    nameWorker(trip.pid, boundary: trip.boundary)
    let host = lane(LaneGroup(pid: hostPid, kind: .remoteActions), from: start, to: end)
    let worker = lane(LaneGroup(pid: trip.pid, kind: .reducer), from: workerStart, to: workerEnd)
    file.append { [origin] json in
      Self.name(trip.boundary, action: trip.action, into: &json)
      json.append(#","cat":"remote","#)
      Self.slice(on: host, from: start, to: end, origin: origin, into: &json)
      // The arguments in the order of their names, as a reader looks them up.
      json.append(#","args":{"bytes_received":"#)
      json.appendDecimal(UInt64(trip.bytesReceived))
      json.append(#","bytes_sent":"#)
      json.appendDecimal(UInt64(trip.bytesSent))
      if let bytes = trip.hostPatchBytes {
        json.append(#","host_patch_bytes":"#)
        json.appendDecimal(UInt64(bytes))
      }
      json.append(#","worker_index":"#)
      json.appendDecimal(Int64(trip.worker))
      if let bytes = trip.workerPatchBytes {
        json.append(#","worker_patch_bytes":"#)
        json.appendDecimal(UInt64(bytes))
      }
      json.append(#","worker_pid":"#)
      json.appendDecimal(Int64(trip.pid))
      json.append(#","worker_us":"#)
      json.appendMicroseconds(Int64(handling))
      json.append("}")
    }
    file.append { [origin] json in
      json.append(#""name":"reduce","cat":"worker","#)
      Self.slice(on: worker, from: workerStart, to: workerEnd, origin: origin, into: &json)
      json.append(#","args":{}"#)
    }
    // A nanosecond inside each slice, so that each arrow binds to the slice it leaves or reaches.
    let (hostIn, workerIn) = (min((end - start) / 2, 1), min(handling / 2, 1))
    flow("request", from: host, at: start + hostIn, to: worker, at: workerStart + workerIn)
    flow("reply", from: worker, at: workerEnd - workerIn, to: host, at: end - hostIn)
  }

  private mutating func write(_ action: EffectActionTrip) {
    let (arrived, processed) = (action.arrived.nanoseconds, action.arrived.nanoseconds + action.nanoseconds)
    // A microsecond's sliver for the worker's send, which the worker does not time.
    let sent = arrived >= 1_000 ? arrived - 1_000 : 0
    nameWorker(action.pid, boundary: action.boundary)
    let worker = lane(LaneGroup(pid: action.pid, kind: .effects), from: sent, to: arrived)
    let host = lane(LaneGroup(pid: hostPid, kind: .effectActions), from: arrived, to: processed)
    file.append { [origin] json in
      json.append(#""name":"effect sends action","cat":"worker","#)
      Self.slice(on: worker, from: sent, to: arrived, origin: origin, into: &json)
      json.append(#","args":{}"#)
    }
    file.append { [origin] json in
      Self.name(action.boundary, " effect", action: action.action, into: &json)
      json.append(#","cat":"effect","#)
      Self.slice(on: host, from: arrived, to: processed, origin: origin, into: &json)
      json.append(#","args":{"bytes":"#)
      json.appendDecimal(UInt64(action.bytes))
      json.append(action.tookOutcome ? #","precomputed":true"# : #","precomputed":false"#)
      json.append(#","worker_index":"#)
      json.appendDecimal(Int64(action.worker))
      json.append(#","worker_pid":"#)
      json.appendDecimal(Int64(action.pid))
      json.append("}")
    }
    let hostIn = min((processed - arrived) / 2, 1)
    flow("effect action", from: worker, at: (sent + arrived) / 2, to: host, at: arrived + hostIn)
  }

  private mutating func write(_ event: BoundaryEvent, at instant: MonotonicInstant) {
    // An inner worker's event goes on the inner worker's own process, named with its depth
    // and the boundary whose worker started it: the trace shows the tree.
    let parent: String? = if case let .nested(parent, _) = event { parent } else { nil }
    let depth = event.depth
    let event = event.innermost
    func nameWorker(_ events: inout Self, _ pid: Int32, boundary: String) {
      let named = parent.map { "\(boundary) (depth \(depth), started by \($0)'s worker)" } ?? boundary
      events.nameWorker(pid, boundary: named)
    }
    let pid: Int32
    let name: String
    switch event {
    case let .workerStarted(boundary, worker):
      nameWorker(&self, worker, boundary: boundary)
      (pid, name) = (worker, "started")
    case let .workerExited(boundary, worker):
      exited[boundary] = worker
      (pid, name) = (worker, "exited")
    case let .workerRetired(_, worker): (pid, name) = (worker, "retired")
    case let .workerRestarted(boundary, worker, _):
      nameWorker(&self, worker, boundary: boundary)
      (pid, name) = (worker, "restarted")
    case let .workerStalled(_, worker, _): (pid, name) = (worker, "stalled")
    case let .limitExceeded(_, worker, _): (pid, name) = (worker, "exceeded its limit")
    case let .effectsLost(boundary, count): (pid, name) = (exited[boundary] ?? hostPid, "\(count) effect(s) lost")
    case .connectionRefused: (pid, name) = (hostPid, "connection refused")
    case .boundaryFailed: (pid, name) = (hostPid, "boundary failed")
    case .actionFailed: (pid, name) = (hostPid, "action failed")
    case let .moved(_, residence, _): (pid, name) = (hostPid, "moved to the \(residence)")
    case .nested: (pid, name) = (hostPid, "event")  // `innermost` is never nested
    }
    file.append { [origin] json in
      json.append(#""name":"#)
      json.appendJSONString(name)
      json.append(#","cat":"event","ph":"i","s":"p","pid":"#)
      json.appendDecimal(Int64(pid))
      json.append(#","tid":0,"ts":"#)
      json.appendMicroseconds(Int64(bitPattern: instant.nanoseconds &- origin.nanoseconds))
      json.append(#","args":{"boundary":"#)
      json.appendJSONString(event.boundary)
      json.append(#","event":"#)
      json.appendJSONString(event.description)
      json.append("}")
    }
  }

  /// The lane of `group` free from `start`, named in the trace the first time it is used.
  private mutating func lane(_ group: LaneGroup, from start: UInt64, to end: UInt64) -> Track {
    let index = lanes[group, default: []].firstIndex { $0 <= start } ?? lanes[group, default: []].count
    let tid = group.kind.rawValue + index
    if index == lanes[group, default: []].count {
      lanes[group, default: []].append(end)
      file.append { json in
        json.append(#""name":"thread_name","ph":"M","pid":"#)
        json.appendDecimal(Int64(group.pid))
        json.append(#","tid":"#)
        json.appendDecimal(Int64(tid))
        json.append(#","args":{"name":""#)
        json.appendJSONContent(group.kind.title)
        if index > 0 {
          json.append(" ")
          json.appendDecimal(Int64(index + 1))
        }
        json.append(#""}"#)
      }
    } else {
      lanes[group, default: []][index] = end
    }
    return Track(pid: group.pid, tid: tid)
  }

  /// Names the process of worker `pid` after its boundary, the first time it appears.
  private mutating func nameWorker(_ pid: Int32, boundary: String) {
    guard named.insert(pid).inserted else { return }
    nameProcess(pid, "worker: ", boundary, sortIndex: 1)
  }

  /// The process `pid`'s name, `role` and then `name`, and its place among the processes.
  private mutating func nameProcess(_ pid: Int32, _ role: StaticString, _ name: String, sortIndex: Int) {
    file.append { json in
      json.append(#""name":"process_name","ph":"M","pid":"#)
      json.appendDecimal(Int64(pid))
      json.append(#","args":{"name":""#)
      json.append(role)
      json.appendJSONContent(name)
      json.append(#""}},{"name":"process_sort_index","ph":"M","pid":"#)
      json.appendDecimal(Int64(pid))
      json.append(#","args":{"sort_index":"#)
      json.appendDecimal(Int64(sortIndex))
      json.append("}")
    }
  }

  /// A slice's members from its phase to its duration: `"ph":"X","pid":…,"dur":…`.
  /// A slice's name: its boundary, what kind it is, and the action, when named.
  private static func name(_ boundary: String, _ kind: String = "", action: String?, into json: inout [UInt8]) {
    json.append(#""name":""#)
    json.appendJSONContent(boundary)
    json.appendJSONContent(kind)
    if let action {
      json.append(": ")
      json.appendJSONContent(action)
    }
    json.append("\"")
  }

  private static func slice(
    on track: Track, from start: UInt64, to end: UInt64, origin: MonotonicInstant, into json: inout [UInt8]
  ) {
    json.append(#""ph":"X","pid":"#)
    json.appendDecimal(Int64(track.pid))
    json.append(#","tid":"#)
    json.appendDecimal(Int64(track.tid))
    json.append(#","ts":"#)
    json.appendMicroseconds(Int64(bitPattern: start &- origin.nanoseconds))
    json.append(#","dur":"#)
    json.appendMicroseconds(Int64(end >= start ? end - start : 0))
  }

  /// An arrow from the slice of `source` around `start` to the slice of `target` around `end`.
  private mutating func flow(
    _ name: StaticString, from source: Track, at start: UInt64, to target: Track, at end: UInt64
  ) {
    nextFlow += 1
    file.append { [nextFlow, origin] json in
      Self.flowEnd(name, id: nextFlow, #""ph":"s","pid":"#, on: source, at: start, origin: origin, into: &json)
    }
    file.append { [nextFlow, origin] json in
      Self.flowEnd(name, id: nextFlow, #""ph":"f","bp":"e","pid":"#, on: target, at: end, origin: origin, into: &json)
    }
  }

  /// One end of arrow `id`, `phase` saying which, up to the pid's value.
  private static func flowEnd(
    _ name: StaticString, id: UInt64, _ phase: StaticString, on track: Track, at instant: UInt64,
    origin: MonotonicInstant, into json: inout [UInt8]
  ) {
    json.append(#""name":""#)
    json.append(name)
    json.append(#"","cat":"crossing","id":"#)
    json.appendDecimal(id)
    json.append(",")
    json.append(phase)
    json.appendDecimal(Int64(track.pid))
    json.append(#","tid":"#)
    json.appendDecimal(Int64(track.tid))
    json.append(#","ts":"#)
    json.appendMicroseconds(Int64(bitPattern: instant &- origin.nanoseconds))
  }
}
