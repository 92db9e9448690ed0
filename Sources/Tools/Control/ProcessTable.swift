import Bulkhead
import BulkheadDistribution

/// What `ps` prints: the host, then each placed boundary's workers by index, each followed by
/// the workers it started for boundaries placed inside its own (indented by depth, their
/// parent's pid in `PARENT`), with what /proc says of each process.
///
/// ```text
/// account: host pid 4711, placement placements/account.placement
/// BOUNDARY          INDEX  PID   STATE  UPTIME  RESTARTS  RSS       CPU     PARENT
/// (host)            -      4711  S      0:42    -         14.2 MiB  0.31 s  -
/// profile           0      4714  S      0:41    0         9.8 MiB   0.05 s  4711
///   profile.avatar  -      4720  S      0:41    -         9.1 MiB   0.02 s  4714
/// ```
struct ProcessTable {
  let app: String
  let run: RunFile
  let snapshot: Wire.ControlSnapshot

  var lines: [String] {
    let uptime = ProcessState.machineUptime()
    func columns(_ pid: Int?) -> [String] {
      guard let pid else { return ["-", "-", "-"] }
      guard let process = ProcessState(of: Int32(pid)), process.isAlive else { return [String(pid), "gone", "-"] }
      return [String(pid), String(process.state), Amount.duration(seconds: process.age(machineUptime: uptime))]
    }
    func usage(_ pid: Int?) -> [String] {
      guard let pid, let process = ProcessState(of: Int32(pid)) else { return ["-", "-"] }
      let cpu = Double(process.cpuTicks) / Double(ProcessState.ticksPerSecond)
      return [process.residentKilobytes.map { Amount.bytes(Double($0) * 1024) } ?? "-", "\(Amount.hundredths(cpu)) s"]
    }
    let tree = ProcessTree.scan()
    let limited = LimitColumns.mechanism(of: snapshot)
    let noLimits = limited == nil ? [] : ["-", "-", "-"]
    var rows = [
      ["BOUNDARY", "INDEX", "PID", "STATE", "UPTIME", "RESTARTS", "RSS", "CPU"] + (limited == nil ? [] : LimitColumns.headers)
        + ["PARENT"]
    ]
    rows.append(["(host)", "-"] + columns(snapshot.hostPID) + ["-"] + usage(snapshot.hostPID) + noLimits + ["-"])
    for boundary in snapshot.boundaries {
      for (index, worker) in boundary.workers.enumerated() {
        let limits =
          limited == nil
          ? [] : LimitColumns.cells(of: worker.pid, in: boundary, residentKilobytes: worker.pid.flatMap { ProcessState(of: Int32($0))?.residentKilobytes })
        // A failed boundary's workers are let go: its places say so.
        let state = boundary.failure != nil && worker.pid == nil ? ["-", "failed", "-"] : columns(worker.pid)
        rows.append(
          [boundary.boundary, String(index)] + state + [String(worker.restarts)] + usage(worker.pid) + limits
            + [String(snapshot.hostPID)])
        for inner in worker.pid.map({ tree.workers(under: Int32($0)) }) ?? [] {
          let name = String(repeating: "  ", count: inner.depth - 1) + inner.boundary
          rows.append([name, "-"] + columns(Int(inner.pid)) + ["-"] + usage(Int(inner.pid)) + noLimits + [String(inner.parent)])
        }
      }
    }
    let placement = run.placement.isEmpty ? "" : ", placement \(run.placement)"
    let failures = snapshot.boundaries.compactMap { boundary in boundary.failure.map { "FAILED: \(boundary.boundary): \($0)" } }
    return ["\(app): host pid \(snapshot.hostPID)\(placement)"] + (limited.map { [$0] } ?? []) + TextTable(rows).lines + failures
  }
}
