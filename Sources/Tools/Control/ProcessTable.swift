import Bulkhead
import BulkheadDistribution

/// What `ps` prints: the host, then each placed boundary's workers by index, each followed by
/// the workers it started for boundaries placed inside its own (indented by depth, their
/// parent's pid in `PARENT`, numbered among their boundary's workers), with what /proc says of
/// each process; then the warm pool's idle workers, if any (`(warm)`). A place that waits for
/// its child to be presented, to claim a warm worker then, says `vacant`.
///
/// ```text
/// account: host pid 4711, placement placements/account.placement
/// BOUNDARY          INDEX  PID   STATE  UPTIME  RESTARTS  RSS       CPU     PARENT
/// (host)            -      4711  S      0:42    -         14.2 MiB  0.31 s  -
/// profile           0      4714  S      0:41    0         9.8 MiB   0.05 s  4711
///   profile.avatar  0      4720  S      0:41    -         9.1 MiB   0.02 s  4714
/// ```
///
/// ```text
/// detail: host pid 5120, placement placements/detail.placement
/// BOUNDARY  INDEX  PID   STATE   UPTIME  RESTARTS  RSS       CPU     PARENT
/// (host)    -      5120  S       0:09    -         31.8 MiB  0.05 s  -
/// detail    0      -     vacant  -       0         -         -       5120
/// (warm)    0      5131  S       0:09    -         7.9 MiB   0.01 s  5120
/// (warm)    1      5140  S       0:09    -         7.9 MiB   0.01 s  5120
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
    let inner = Dictionary(grouping: ProcessTree.scan().innerWorkers(below: snapshot), by: \.worker.parent)
    let limited = LimitColumns.mechanism(of: snapshot)
    let noLimits = limited == nil ? [] : ["-", "-", "-"]
    /// The rows of the workers below `pid`, each followed by those below it.
    func rowsBelow(_ pid: Int32) -> [[String]] {
      (inner[pid] ?? []).flatMap { numbered -> [[String]] in
        let worker = numbered.worker
        let name = String(repeating: "  ", count: worker.depth - 1) + worker.boundary
        let row = [name, String(numbered.index)] + columns(Int(worker.pid)) + ["-"] + usage(Int(worker.pid)) + noLimits
        return [row + [String(worker.parent)]] + rowsBelow(worker.pid)
      }
    }
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
        // A boundary moved to the host runs in the host's process: "host" where a pid was. A
        // failed boundary's workers are let go: its places say so.
        let state =
          boundary.residence == .host
          ? ["host", "-", "-"]
          : boundary.failure != nil && worker.pid == nil
            ? ["-", "failed", "-"] : worker.vacant ? ["-", "vacant", "-"] : columns(worker.pid)
        rows.append(
          [boundary.boundary, String(index)] + state + [String(worker.restarts)] + usage(worker.pid) + limits
            + [String(snapshot.hostPID)])
        rows += worker.pid.map { rowsBelow(Int32($0)) } ?? []
      }
    }
    for (index, pid) in snapshot.warmPIDs.enumerated() {
      rows.append(["(warm)", String(index)] + columns(pid) + ["-"] + usage(pid) + noLimits + [String(snapshot.hostPID)])
    }
    let placement = run.placement.isEmpty ? "" : ", placement \(run.placement)"
    let failures = snapshot.boundaries.compactMap { boundary in boundary.failure.map { "FAILED: \(boundary.boundary): \($0)" } }
    return ["\(app): host pid \(snapshot.hostPID)\(placement)"] + (limited.map { [$0] } ?? []) + TextTable(rows).lines + failures
  }
}
