import Bulkhead
import BulkheadDistribution
import Dispatch
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

  /// Draws until `q`, Ctrl-C, SIGTERM or SIGHUP, or until the composition goes down.
  func run() async throws {
    let screen = RawTerminal.enter()
    let signals = [SIGINT, SIGTERM, SIGHUP].map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { @Sendable in
        screen.restore()
        exit(0)
      }
      source.resume()
      return source
    }
    defer {
      for source in signals { source.cancel() }
      screen.restore()
    }
    var connection = try target.connect()
    defer { connection.system.close() }
    var previous: Sample?
    var input = screen.input
    while true {
      let snapshot = try await snapshot(over: &connection)
      let workers = snapshot.boundaries.flatMap { $0.workers.compactMap(\.pid) }
      let tree = ProcessTree.scan()
      let inner = Dictionary(uniqueKeysWithValues: workers.map { ($0, tree.workers(under: Int32($0))) })
      let pids = [snapshot.hostPID] + workers + inner.values.joined().map { Int($0.pid) }
      let sample = Sample(
        snapshot: snapshot, time: .now,
        processes: Dictionary(uniqueKeysWithValues: pids.compactMap { pid in ProcessState(of: Int32(pid)).map { (pid, $0) } }),
        inner: inner)
      screen.draw(frame(sample, since: previous))
      previous = sample
      if input.waitForQuit(until: sample.time + .seconds(1)) { return }
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
    let limited = LimitColumns.mechanism(of: sample.snapshot)
    var rows = [
      ["BOUNDARY", "PID", "STATE", "CPU%", "RSS", "ACTIONS", "ACTIONS/S", "SENT/S", "RECEIVED/S", "P50", "P99", "RESTARTS", "SLOW"]
        + (limited == nil ? [] : LimitColumns.headers)
    ]
    rows.append(["(host)"] + process(sample.snapshot.hostPID))
    for boundary in sample.snapshot.boundaries {
      // A boundary moved to the host runs in the host's process: "host" where its workers' pids were.
      rows.append(
        [boundary.boundary, boundary.residence == .host ? "host" : "", "", "", "", String(boundary.actions),
         rate(\.actions, of: boundary).map(Amount.decimal) ?? "-",
         rate(\.bytesSent, of: boundary).map(Amount.bytes) ?? "-",
         rate(\.bytesReceived, of: boundary).map(Amount.bytes) ?? "-",
         boundary.latency.map { Amount.latency(microseconds: $0.p50) } ?? "-",
         boundary.latency.map { Amount.latency(microseconds: $0.p99) } ?? "-",
         String(boundary.workers.map(\.restarts).reduce(0, +)),
         boundary.replyDelayMilliseconds > 0 ? "\(boundary.replyDelayMilliseconds) ms" : "-"])
      for (index, worker) in boundary.workers.enumerated() where boundary.residence == .worker {
        let limits =
          limited == nil
          ? [] : [""] + LimitColumns.cells(
            of: worker.pid, in: boundary, residentKilobytes: worker.pid.flatMap { sample.processes[$0]?.residentKilobytes })
        rows.append(["  \(boundary.boundary)[\(index)]"] + process(worker.pid) + ["", "", "", "", "", "", String(worker.restarts)] + limits)
        for inner in worker.pid.flatMap({ sample.inner[$0] }) ?? [] {
          rows.append([String(repeating: "  ", count: inner.depth) + inner.boundary] + process(Int(inner.pid)))
        }
      }
    }
    let clock = Date().formatted(date: .omitted, time: .standard)
    let moves = sample.snapshot.boundaries.compactMap { boundary in
      boundary.lastMoveNanoseconds.map {
        "\(boundary.boundary) moved to the \(boundary.residence) in \(TimingsTable.duration(UInt64($0)))"
      }
    }
    return ["\(target.app): host pid \(sample.snapshot.hostPID)   \(clock)   q or Ctrl-C quits"] + (limited.map { [$0] } ?? []) + [""]
      + TextTable(rows).lines + (moves.isEmpty ? [] : ["", "last moves: " + moves.joined(separator: "; ")])
  }
}
