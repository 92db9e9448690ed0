import Bulkhead
import BulkheadDistribution
internal import Transport

/// The columns `ps` and `top` add when a composition's workers run under limits: each
/// worker's use against the limit the kernel holds it to (read from its cgroup and
/// `/proc/PID/limits`, not from the placement), and a line naming the mechanism.
///
/// ```text
/// limits: cgroup v1: memory by memory.limit_in_bytes, cpu by cpu.cfs_quota_us, files by RLIMIT_NOFILE
/// BOUNDARY  …  MEMORY/LIMIT     CPU LIMIT  FILES/LIMIT
/// counter1  …  1.2 MiB/64.0 MiB  -          -
/// ```
enum LimitColumns {
  static let headers = ["MEMORY/LIMIT", "CPU LIMIT", "FILES/LIMIT"]

  /// The line above the table; nil when no boundary has limits, and the table is as before.
  static func mechanism(of snapshot: Wire.ControlSnapshot) -> String? {
    snapshot.limitMechanism.isEmpty ? nil : "limits: \(snapshot.limitMechanism)"
  }

  /// Worker `pid` of `boundary`: memory (its cgroup's charge, or its resident memory) against
  /// its memory limit, its CPU limit, its open descriptors against its limit; "-" for a limit
  /// the placement does not set.
  static func cells(of pid: Int?, in boundary: Wire.BoundarySnapshot, residentKilobytes: Int?) -> [String] {
    guard let pid else { return ["-", "-", "-"] }
    let kernel = LimitsInForce(of: Int32(pid))
    let memory = boundary.memoryLimit.map { _ in
      let used = kernel.memoryCharged.map(Double.init) ?? residentKilobytes.map { Double($0) * 1024 }
      return "\(used.map(Amount.bytes) ?? "-")/\(kernel.memoryBytes.map { Amount.bytes(Double($0)) } ?? "none")"
    }
    // A share the host throttles is not in the kernel: the placement's figure, said so.
    let cpu = boundary.cpuPercent.map { percent in kernel.cpuPercent.map { "\($0)%" } ?? "\(percent)% (host)" }
    let files = boundary.fileLimit.map { _ in
      "\(kernel.openFiles.map(String.init) ?? "-")/\(kernel.files.map(String.init) ?? "none")"
    }
    return [memory ?? "-", cpu ?? "-", files ?? "-"]
  }
}
