import Foundation

/// The limits the kernel holds a process to, and its use against them, read from the process's
/// cgroups and `/proc/PID/limits`: what `ps` and `top` show, so that they show the bound in
/// force, not only the one the placement asked for. A CPU share the host throttles is not in
/// the kernel: nil here.
///
/// ```swift
/// let worker = LimitsInForce(of: pid)
/// worker.memoryBytes  // 67108864: memory.limit_in_bytes of its cgroup, or RLIMIT_DATA
/// ```
package struct LimitsInForce: Sendable, Equatable {
  /// The memory bound: the cgroup's `memory.max` or `memory.limit_in_bytes`, else `RLIMIT_DATA`.
  package var memoryBytes: Int?
  /// The memory the cgroup charges the process with; nil without a memory cgroup.
  package var memoryCharged: Int?
  /// The CPU share a cgroup holds it to, in percent of one core.
  package var cpuPercent: Int?
  /// `RLIMIT_NOFILE`, and how many descriptors it has open.
  package var files: Int?
  package var openFiles: Int?

  /// Reads them for process `pid`; the fields it cannot read stay nil.
  package init(of pid: Int32) {
    let mounts = CgroupMounts.read()
    let own = CgroupMounts.ownPaths(of: "\(pid)")
    let limits = Self.resourceLimits(of: pid)
    if let mount = mounts.unified, let path = own[""], path != "/" {
      let group = mount + path
      memoryBytes = Self.number(in: group + "/memory.max")
      memoryCharged = memoryBytes.flatMap { _ in Self.number(in: group + "/memory.current") }
      let words = Self.text(group + "/cpu.max").split(separator: " ")
      if words.count == 2, let quota = Int(words[0]), let period = Int(words[1]), period > 0 {
        cpuPercent = quota * 100 / period
      }
    }
    if memoryBytes == nil, let mount = mounts.v1["memory"], let path = own["memory"] {
      let group = mount + path
      // An unbounded v1 group reads as a number near 2^63.
      memoryBytes = Self.number(in: group + "/memory.limit_in_bytes").flatMap { $0 < 1 << 50 ? $0 : nil }
      memoryCharged = memoryBytes.flatMap { _ in Self.number(in: group + "/memory.usage_in_bytes") }
    }
    if cpuPercent == nil, let mount = mounts.v1["cpu"], let path = own["cpu"] {
      let quota = Self.number(in: mount + path + "/cpu.cfs_quota_us")
      let period = Self.number(in: mount + path + "/cpu.cfs_period_us")
      if let quota, let period, quota > 0, period > 0 { cpuPercent = quota * 100 / period }
    }
    memoryBytes = memoryBytes ?? limits["Max data size"]
    files = limits["Max open files"]
    openFiles = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
  }

  /// The soft limits of `/proc/PID/limits` that are set ("unlimited" ones are left out), by name.
  private static func resourceLimits(of pid: Int32) -> [String: Int] {
    var limits: [String: Int] = [:]
    for line in text("/proc/\(pid)/limits").split(separator: "\n") {
      // "Max open files            64                   64                   files"
      guard let name = ["Max data size", "Max open files"].first(where: { line.hasPrefix($0) }),
        let soft = line.dropFirst(name.count).split(separator: " ").first, let value = Int(soft)
      else { continue }
      limits[name] = value
    }
    return limits
  }

  private static func number(in file: String) -> Int? {
    Int(text(file).trimmingCharacters(in: .whitespacesAndNewlines))
  }

  private static func text(_ file: String) -> String {
    (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
  }
}
