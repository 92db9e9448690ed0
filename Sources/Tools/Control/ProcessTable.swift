import Bulkhead
import BulkheadDistribution

/// What `ps` prints: the host, then each placed boundary's workers by index, with what /proc
/// says of each process.
///
/// ```text
/// timers: host pid 4711, placement placements/timers.placement
/// BOUNDARY  INDEX  PID   STATE  UPTIME  RESTARTS  RSS       CPU
/// (host)    -      4711  S      0:42    -         14.2 MiB  0.31 s
/// timers    0      4714  S      0:41    0         9.8 MiB   0.05 s
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
    let limited = LimitColumns.mechanism(of: snapshot)
    var rows = [["BOUNDARY", "INDEX", "PID", "STATE", "UPTIME", "RESTARTS", "RSS", "CPU"] + (limited == nil ? [] : LimitColumns.headers)]
    rows.append(["(host)", "-"] + columns(snapshot.hostPID) + ["-"] + usage(snapshot.hostPID) + (limited == nil ? [] : ["-", "-", "-"]))
    for boundary in snapshot.boundaries {
      for (index, worker) in boundary.workers.enumerated() {
        let limits =
          limited == nil
          ? [] : LimitColumns.cells(of: worker.pid, in: boundary, residentKilobytes: worker.pid.flatMap { ProcessState(of: Int32($0))?.residentKilobytes })
        rows.append([boundary.boundary, String(index)] + columns(worker.pid) + [String(worker.restarts)] + usage(worker.pid) + limits)
      }
    }
    let placement = run.placement.isEmpty ? "" : ", placement \(run.placement)"
    return ["\(app): host pid \(snapshot.hostPID)\(placement)"] + (limited.map { [$0] } ?? []) + TextTable(rows).lines
  }
}
