import Foundation
package import Transport

extension Wire {
  /// A running composition as `CompositionControl.snapshot()` gives it to `ps` and `top`.
  ///
  /// ```swift
  /// let snapshot = try await control.snapshot()
  /// snapshot.boundaries.first?.actions  // 12
  /// ```
  package struct ControlSnapshot: Equatable, Sendable, WireCodable {
    package var hostPID: Int
    package var boundaries: [BoundarySnapshot]
    /// How the workers' limits are enforced, in words; empty when no boundary has limits.
    package var limitMechanism: String
    /// The pids of the warm pool's idle workers, oldest first.
    package var warmPIDs: [Int]

    package init(hostPID: Int, boundaries: [BoundarySnapshot], limitMechanism: String = "", warmPIDs: [Int] = []) {
      (self.hostPID, self.boundaries, self.limitMechanism, self.warmPIDs) = (hostPID, boundaries, limitMechanism, warmPIDs)
    }

    package init(from reader: inout ByteReader) throws(TransportError) {
      hostPID = try reader.readInt()
      boundaries = try [BoundarySnapshot](from: &reader)
      limitMechanism = try reader.readString()
      warmPIDs = try [Int](from: &reader)
    }

    package func write(to writer: inout ByteWriter) {
      writer.write(hostPID)
      boundaries.write(to: &writer)
      writer.write(limitMechanism)
      warmPIDs.write(to: &writer)
    }
  }

  /// One placed boundary in a `ControlSnapshot`: its pool, what has crossed it, how it is
  /// slowed.
  package struct BoundarySnapshot: Equatable, Sendable, WireCodable {
    package var boundary: String
    /// The pool's places in order: a worker's index is its place.
    package var workers: [WorkerPlace]
    package var actions: Int
    package var bytesSent: Int
    package var bytesReceived: Int
    package var failures: Int
    package var stalls: Int
    /// What `slow` set: how long the host holds each reply, in milliseconds.
    package var replyDelayMilliseconds: Int
    /// The latency of the boundary's round trips; nil before the first, and `top` shows "-".
    package var latency: LatencyPercentiles?
    /// The limits each of its workers runs under (nil: none of that kind).
    package var memoryLimit: Int?
    package var cpuPercent: Int?
    package var fileLimit: Int?
    /// Where the child runs now, and how long its last move took (nil: it never moved).
    package var residence: Residence = .worker
    package var lastMoveNanoseconds: Int?
    /// Why the boundary failed, if it did: it runs no workers, and its actions change nothing.
    package var failure: String?

    package init(
      boundary: String, workers: [WorkerPlace], statistics: BoundaryStatistics, replyDelayMilliseconds: Int,
      latency: LatencyPercentiles?
    ) {
      self.boundary = boundary
      self.workers = workers
      actions = statistics.actions
      bytesSent = statistics.bytesSent
      bytesReceived = statistics.bytesReceived
      failures = statistics.failures
      stalls = statistics.stalls
      self.replyDelayMilliseconds = replyDelayMilliseconds
      self.latency = latency
    }

    /// The snapshot, with the limits its workers run under.
    func limited(by limits: ResourceLimits?) -> Self {
      var snapshot = self
      (snapshot.memoryLimit, snapshot.cpuPercent, snapshot.fileLimit) = (limits?.memoryBytes, limits?.cpuPercent, limits?.files)
      return snapshot
    }

    /// The snapshot, with where the child runs after `move`, the last move there was.
    func moved(_ move: (to: Residence, took: Duration)?) -> Self {
      var snapshot = self
      guard let move else { return snapshot }
      snapshot.residence = move.to
      snapshot.lastMoveNanoseconds = Int(move.took / .nanoseconds(1))
      return snapshot
    }

    /// The snapshot of a boundary that failed for `reason` (nil: it did not).
    func failed(_ reason: String?) -> Self {
      var snapshot = self
      snapshot.failure = reason
      return snapshot
    }

    package init(from reader: inout ByteReader) throws(TransportError) {
      boundary = try reader.readString()
      workers = try [WorkerPlace](from: &reader)
      actions = try reader.readInt()
      bytesSent = try reader.readInt()
      bytesReceived = try reader.readInt()
      failures = try reader.readInt()
      stalls = try reader.readInt()
      replyDelayMilliseconds = try reader.readInt()
      latency = try LatencyPercentiles?(from: &reader)
      memoryLimit = try Int?(from: &reader)
      cpuPercent = try Int?(from: &reader)
      fileLimit = try Int?(from: &reader)
      residence = try Residence(from: &reader)
      lastMoveNanoseconds = try Int?(from: &reader)
      failure = try String?(from: &reader)
    }

    package func write(to writer: inout ByteWriter) {
      writer.write(boundary)
      workers.write(to: &writer)
      for count in [actions, bytesSent, bytesReceived, failures, stalls, replyDelayMilliseconds] { writer.write(count) }
      latency.write(to: &writer)
      for limit in [memoryLimit, cpuPercent, fileLimit] { limit.write(to: &writer) }
      residence.write(to: &writer)
      lastMoveNanoseconds.write(to: &writer)
      failure.write(to: &writer)
    }
  }

  /// One place of a boundary's pool: its running worker's pid, nil between a death and the
  /// restart, and how often it was restarted.
  package struct WorkerPlace: Equatable, Sendable, WireCodable {
    package var pid: Int?
    package var restarts: Int
    /// No worker until its child is presented, when one is claimed from the warm pool.
    package var vacant: Bool

    package init(pid: Int?, restarts: Int, vacant: Bool = false) {
      (self.pid, self.restarts, self.vacant) = (pid, restarts, vacant)
    }

    package init(from reader: inout ByteReader) throws(TransportError) {
      pid = try Int?(from: &reader)
      restarts = try reader.readInt()
      vacant = try reader.readUInt64() != 0
    }

    package func write(to writer: inout ByteWriter) {
      pid.write(to: &writer)
      writer.write(restarts)
      writer.write(UInt64(vacant ? 1 : 0))
    }
  }

  /// Latency percentiles of one boundary's actions, in nanoseconds: a child run in the host
  /// after a move takes less than a microsecond.
  package struct LatencyPercentiles: Equatable, Sendable, WireCodable {
    package var p50: Int
    package var p99: Int

    package init(p50: Int, p99: Int) {
      (self.p50, self.p99) = (p50, p99)
    }

    package init(from reader: inout ByteReader) throws(TransportError) {
      p50 = try reader.readInt()
      p99 = try reader.readInt()
    }

    package func write(to writer: inout ByteWriter) {
      writer.write(p50)
      writer.write(p99)
    }
  }

  /// The signals a control client may send a worker.
  package enum WorkerSignal: Int, Equatable, Sendable, WireCodableByRawValue {
    case kill
    case stop
    case cont

    package var number: Int32 {
      switch self {
      case .kill: SIGKILL
      case .stop: SIGSTOP
      case .cont: SIGCONT
      }
    }
  }

  /// What became of a signal a control client sent a worker.
  package enum SignalDelivery: Int, Equatable, Sendable, WireCodableByRawValue {
    /// The worker was running, and the signal reached it.
    case delivered
    /// The worker had exited before the host noticed: nothing was sent. After a kill its
    /// successor starts all the same; otherwise the next action starts it.
    case workerHadExited
  }
}

extension Composition {
  /// Each placed boundary as the control endpoint shows it, in placement order.
  var boundarySnapshots: [Wire.BoundarySnapshot] {
    processes.compactMap { process in
      guard let remote = remote(process.boundary), let statistics = statistics(of: process.boundary) else { return nil }
      return Wire.BoundarySnapshot(
        boundary: process.boundary,
        workers: remote.places.map {
          Wire.WorkerPlace(pid: $0.pid.map(Int.init), restarts: $0.restarts, vacant: $0.vacant)
        },
        statistics: statistics, replyDelayMilliseconds: remote.replyDelay,
        // Over the last seconds, since the last move: a move or a fault shows at once.
        latency: timings(of: process.boundary).flatMap { timings in
          let trips = timings.recent.window(at: .now)
          guard trips.count > 0 else { return nil }
          return Wire.LatencyPercentiles(
            p50: Int(trips.percentile(0.5)), p99: Int(trips.percentile(0.99)))
        }
      ).limited(by: limits[process.boundary]).moved(remote.lastMove).failed(remote.failure.map(String.init(describing:)))
    }
  }
}

extension Residence: WireCodable {
  package init(from reader: inout ByteReader) throws(TransportError) {
    let raw = try reader.readString()
    guard let residence = Residence(rawValue: raw) else { throw .malformed("no residence \"\(raw.prefix(20))\"") }
    self = residence
  }

  package func write(to writer: inout ByteWriter) { writer.write(rawValue) }
}

/// A control message that is a plain enum crosses as its raw value; one the enum does not
/// have is malformed.
package protocol WireCodableByRawValue: WireCodable, RawRepresentable<Int> {}

extension WireCodableByRawValue {
  package init(from reader: inout ByteReader) throws(TransportError) {
    let raw = try reader.readInt()
    guard let value = Self(rawValue: raw) else { throw .malformed("no \(Self.self) \(raw)") }
    self = value
  }

  package func write(to writer: inout ByteWriter) { writer.write(rawValue) }
}
