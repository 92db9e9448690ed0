import Bulkhead
import BulkheadDistribution
import Foundation
internal import Transport

/// `top`: a view of a detached composition that redraws in place once a second: per
/// boundary, actions and bytes per second and latency percentiles; per worker, its state,
/// CPU and memory. `q` or Ctrl-C quits and gives the terminal back as it was.
///
/// ```swift
/// try await TopView(target: try ControlTarget(app: "timers")).run()
/// ```
@MainActor
struct TopView {
  let target: ControlTarget

  /// A connection to the control endpoint, and the endpoint.
  private typealias Connection = (system: SocketActorSystem, control: CompositionControl)

  /// What one refresh saw, to work out rates against the next.
  private struct Sample {
    let snapshot: Wire.ControlSnapshot
    let time: ContinuousClock.Instant
    let processes: [Int: ProcessState]
    /// The workers below each worker (nested placement), by the worker's pid.
    let inner: [Int: [ProcessTree.Worker]]
  }

  /// Draws until `q`, Ctrl-C, SIGTERM or SIGHUP, or until the composition goes down; one
  /// plain frame when standard output is not a terminal (`RedrawLoop`).
  func run() async throws {
    var connection = try target.connect()
    defer { connection.system.close() }
    var previous: Sample?
    try await RedrawLoop.run {
      let snapshot = try await snapshot(over: &connection)
      let workers = snapshot.boundaries.flatMap { $0.workers.compactMap(\.pid) }
      let tree = ProcessTree.scan()
      let inner = Dictionary(uniqueKeysWithValues: workers.map { ($0, tree.workers(under: Int32($0))) })
      let pids = [snapshot.hostPID] + workers + inner.values.joined().map { Int($0.pid) }
      let sample = Sample(
        snapshot: snapshot, time: .now,
        processes: Dictionary(uniqueKeysWithValues: pids.compactMap { pid in ProcessState(of: Int32(pid)).map { (pid, $0) } }),
        inner: inner)
      defer { previous = sample }
      return frame(sample, since: previous)
    }
  }

  /// The next snapshot. The host closes a connection that sends no request within its read
  /// deadline (`top` stopped, the machine asleep): one it closed while still up is made again,
  /// once.
  private func snapshot(over connection: inout Connection) async throws -> Wire.ControlSnapshot {
    let control = connection.control
    do {
      return try await control.snapshot()
    } catch RemoteCallError.peerDisconnected where target.isHostUp {
      connection.system.close()
    } catch {
      throw target.describing(error)
    }
    connection = try target.connect()
    return try await target.calling { [control = connection.control] in try await control.snapshot() }
  }

  private func frame(_ sample: Sample, since previous: Sample?) -> [String] {
    let elapsed = previous.map { Double($0.time.duration(to: sample.time).wholeMilliseconds) / 1_000 } ?? 0
    func rate(_ value: (Wire.BoundarySnapshot) -> Int, of boundary: Wire.BoundarySnapshot) -> Double? {
      guard elapsed > 0, let before = previous?.snapshot.boundaries.first(where: { $0.boundary == boundary.boundary }) else {
        return nil
      }
      return Double(value(boundary) - value(before)) / elapsed
    }
    func process(_ pid: Int?) -> [String] {
      guard let pid else { return ["-", "-", "-", "-"] }
      guard let now = sample.processes[pid], now.isAlive else { return [String(pid), "gone", "-", "-"] }
      let cpu = previous?.processes[pid].flatMap { before -> String? in
        guard elapsed > 0 else { return nil }
        let seconds = Double(now.cpuTicks - before.cpuTicks) / Double(ProcessState.ticksPerSecond)
        return Amount.decimal(seconds / elapsed * 100)
      }
      return [String(pid), String(now.state), cpu ?? "-", now.residentKilobytes.map { Amount.bytes(Double($0) * 1024) } ?? "-"]
    }
    let snapshot = sample.snapshot
    var crossings = [["BOUNDARY", "ACTIONS", "ACTIONS/S", "OUT/S", "IN/S", "P50", "P99"]]
    var processes = [["PROCESS", "PID", "STATE", "CPU%", "RSS", "RESTARTS"]]
    var limits = [["PROCESS"] + LimitColumns.headers]
    processes.append(["(host)"] + process(snapshot.hostPID) + ["-"])
    for boundary in snapshot.boundaries {
      crossings.append(
        [boundary.boundary, String(boundary.actions),
         rate(\.actions, of: boundary).map(Amount.decimal) ?? "-",
         rate(\.bytesSent, of: boundary).map(Amount.bytes) ?? "-",
         rate(\.bytesReceived, of: boundary).map(Amount.bytes) ?? "-",
         boundary.latency.map { Duration.nanoseconds($0.p50).readable } ?? "-",
         boundary.latency.map { Duration.nanoseconds($0.p99).readable } ?? "-"])
      // A boundary moved to the host runs in the host's process: "host" where its workers were.
      if boundary.residence == .host { processes.append([boundary.boundary, "host", "-", "-", "-", "-"]) }
      for (index, worker) in boundary.workers.enumerated() where boundary.residence == .worker {
        let name = "\(boundary.boundary)[\(index)]"
        let cells = boundary.failure != nil && worker.pid == nil ? ["-", "failed", "-", "-"] : process(worker.pid)
        processes.append([name] + cells + [String(worker.restarts)])
        limits.append(
          [name] + LimitColumns.cells(
            of: worker.pid, in: boundary, residentKilobytes: worker.pid.flatMap { sample.processes[$0]?.residentKilobytes }))
        for inner in worker.pid.flatMap({ sample.inner[$0] }) ?? [] {
          processes.append([String(repeating: "  ", count: inner.depth) + inner.boundary] + process(Int(inner.pid)) + ["-"])
        }
      }
    }
    let clock = Amount.timeOfDay()
    var lines = ["\(target.app): host pid \(snapshot.hostPID)   \(clock)   q or Ctrl-C quits"]
    lines += snapshot.boundaries.flatMap { boundary in
      boundary.failure.map { TextTable.wrap("FAILED: \(boundary.boundary): \($0)") } ?? []
    }
    lines += snapshot.boundaries.filter { $0.replyDelayMilliseconds > 0 }.map {
      "slow: \($0.boundary) holds each reply \($0.replyDelayMilliseconds) ms"
    }
    lines += [""] + TextTable(crossings).lines + [""] + TextTable(processes).lines
    if let limited = LimitColumns.mechanism(of: snapshot) {
      lines += [""] + TextTable.wrap(limited)
      lines += TextTable(limits).lines
    }
    let moves = snapshot.boundaries.compactMap { boundary in
      boundary.lastMoveNanoseconds.map {
        "\(boundary.boundary) moved to the \(boundary.residence) in \(TimingsTable.duration(UInt64($0)))"
      }
    }
    if !moves.isEmpty { lines += [""] + TextTable.wrap("last moves: " + moves.joined(separator: "; ")) }
    return lines
  }
}
