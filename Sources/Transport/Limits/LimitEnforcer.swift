import CSystem
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Puts a composition's workers under their limits with the mechanism the machine offers.
/// With cgroups, each worker gets a cgroup of its own in a directory of the enforcer's
/// (`bulkhead-HOSTPID-N`, under the host's own cgroup, N counting the process's enforcers so
/// that two compositions in one process never share one), made when the first worker needs it
/// and removed at `close()`; directories of hosts that are gone are swept when an enforcer is
/// made.
///
/// The host calls `enforce` between starting a worker and handing it its launch: the worker
/// waits for the launch before it runs any of the app's code, so it serves under its limits
/// from its first action, whether it was spawned or forked from the template. Under cgroup v1
/// a forked worker's groups are made before the fork (`groupsToJoin`), and the worker joins
/// them itself as it begins.
///
/// ```swift
/// let enforcer = LimitEnforcer(mechanism: .detect())
/// let enforced = try enforcer.enforce(ResourceLimits(memoryBytes: 128 << 20), on: pid, name: "w0-0") { _ in true }
/// ```
package final class LimitEnforcer: Sendable {
  package let mechanism: LimitMechanism
  /// This enforcer's directory in each hierarchy: `bulkhead-HOSTPID-N`.
  package let directoryName = "\(LimitEnforcer.prefix)\(getpid())-\(LimitEnforcer.made.add(1, ordering: .relaxed).newValue)"
  /// Holds workers to their CPU share where no cgroup does.
  private let throttle = CPUThrottle()
  /// Numbers the groups made before their worker's pid is known.
  private let groupsMadeAhead = Atomic(0)

  private static let prefix = "bulkhead-"
  /// Numbers the process's enforcers.
  private static let made = Atomic(0)

  /// This enforcer's directories, one per hierarchy it uses (they exist while a group does).
  package var directories: [String] { mechanism.roots.map { $0 + "/" + directoryName } }

  package init(mechanism: LimitMechanism) {
    self.mechanism = mechanism
    for root in mechanism.roots { Self.sweep(root) }
  }

  /// The cgroup v1 groups of worker `name`, about to be forked, made now with `limits`
  /// written, for the worker to join as it begins; nil where it joins none (cgroup v2 and
  /// resource limits, or no memory or cpu limit a group holds), and `enforce` does the rest.
  ///
  /// - Throws: `TransportError.system` naming the file or call that failed.
  package func groupsToJoin(_ limits: ResourceLimits, name: String) throws(TransportError) -> JoinableGroups? {
    guard case let .cgroup1(memory, cpu) = mechanism else { return nil }
    let number = groupsMadeAhead.add(1, ordering: .relaxed).newValue
    let groups = try makeGroups(memory: memory, cpu: cpu, limits: limits, named: "\(name)-new-\(number)")
    guard !groups.isEmpty else { return nil }
    var descriptors: [Int32] = []
    for group in groups {
      let descriptor = open(group + "/tasks", O_WRONLY | O_CLOEXEC)
      guard descriptor >= 0 else {
        let failure = TransportError.system(call: "open", errno: errno, context: group + "/tasks")
        for descriptor in descriptors { Glibc.close(descriptor) }
        for group in groups { rmdir(group) }
        throw failure
      }
      descriptors.append(descriptor)
    }
    return JoinableGroups(directories: groups, descriptors: descriptors)
  }

  /// Bounds process `pid`, the worker `name`, by `limits`; `signal` reaches it through its
  /// pidfd, for the host's CPU throttle. A worker forked into `joined` (`groupsToJoin`) is
  /// in its groups already: they are renamed for its pid.
  ///
  /// - Throws: `TransportError.system` naming the file or call that failed.
  package func enforce(
    _ limits: ResourceLimits, on pid: pid_t, name: String, joined: JoinableGroups? = nil,
    signal: @escaping @Sendable (Int32) -> Bool
  ) throws(TransportError) -> EnforcedLimits {
    var groups: [String] = joined?.directories ?? []
    do throws(TransportError) {
      if let files = limits.files { try setLimit(Int32(bulkhead_limit_files), to: UInt64(files), on: pid) }
      switch (mechanism, joined) {
      case (_, .some(let joined)):
        groups = joined.named(name, pid: pid)
      case let (.cgroup2(directory), nil):
        let group = try makeGroup(in: directory, named: "\(name)-\(pid)")
        groups.append(group)
        if let bytes = limits.memoryBytes { try write("\(bytes)", to: group + "/memory.max") }
        if let percent = limits.cpuPercent { try write("\(percent * 1_000) 100000", to: group + "/cpu.max") }
        try write("\(pid)", to: group + "/cgroup.procs")
      case let (.cgroup1(memory, cpu), nil):
        groups = try makeGroups(memory: memory, cpu: cpu, limits: limits, named: "\(name)-\(pid)")
        for group in groups { try write("\(pid)", to: group + "/cgroup.procs") }
      case (.resourceLimits, nil):
        if let bytes = limits.memoryBytes { try setLimit(Int32(bulkhead_limit_data), to: UInt64(bytes), on: pid) }
      }
    } catch {
      for group in groups { rmdir(group) }
      throw error
    }
    let throttled = mechanism.hostThrottlesCPU ? limits.cpuPercent : nil
    let token = throttled.flatMap { throttle.add(pid: pid, percent: $0, signal: signal) }
    return EnforcedLimits(
      limits: limits, mechanism: mechanism, groups: groups, throttle: token.map { (throttle, $0) })
  }

  /// Removes the host's directories once every worker's group is gone (at shutdown).
  package func close() {
    for directory in directories { rmdir(directory) }
  }

  /// Makes the cgroup v1 groups `limits` needs, named `name`, with their limits written: in
  /// the memory hierarchy, and in the cpu one where the host may write it (a new group's
  /// `cpu.cfs_period_us` is the kernel's 100 ms already). Removes what it made if it fails.
  private func makeGroups(
    memory: String, cpu: String?, limits: ResourceLimits, named name: String
  ) throws(TransportError) -> [String] {
    var groups: [String] = []
    do throws(TransportError) {
      if let bytes = limits.memoryBytes {
        groups.append(try makeGroup(in: memory, named: name))
        try write("\(bytes)", to: groups[groups.count - 1] + "/memory.limit_in_bytes")
      }
      if let percent = limits.cpuPercent, let cpu {
        groups.append(try makeGroup(in: cpu, named: name))
        try write("\(percent * 1_000)", to: groups[groups.count - 1] + "/cpu.cfs_quota_us")
      }
    } catch {
      for group in groups { rmdir(group) }
      throw error
    }
    return groups
  }

  /// Makes `root/bulkhead-HOSTPID-N/GROUP`, and the enforcer's directory first if need be.
  private func makeGroup(in root: String, named group: String) throws(TransportError) -> String {
    let host = root + "/" + directoryName
    if mkdir(host, 0o755) != 0, errno != EEXIST { throw .system(call: "mkdir", errno: errno, context: host) }
    let group = host + "/" + group
    if mkdir(group, 0o755) != 0 { throw .system(call: "mkdir", errno: errno, context: group) }
    return group
  }

  private func setLimit(_ which: Int32, to value: UInt64, on pid: pid_t) throws(TransportError) {
    guard bulkhead_set_limit(pid, which, value, value) == 0 else {
      throw .system(call: "prlimit", errno: errno, context: "the limits of worker \(pid)")
    }
  }

  /// Removes the directories of hosts that are gone (`bulkhead-PID-N`, or `bulkhead-PID` as
  /// earlier hosts named them, with no process PID) from `root`, with their workers' groups:
  /// a group is empty once its worker exited, which a worker does when its host dies. A group
  /// still in use stays, and so does its host's.
  private static func sweep(_ root: String) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return }
    for name in names where name.hasPrefix(prefix) {
      let owner = name.dropFirst(prefix.count).prefix { $0 != "-" }
      guard let pid = pid_t(owner), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else {
        continue
      }
      let host = root + "/" + name
      for group in (try? FileManager.default.contentsOfDirectory(atPath: host)) ?? [] {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: host + "/" + group, isDirectory: &isDirectory), isDirectory.boolValue {
          rmdir(host + "/" + group)
        }
      }
      rmdir(host)
    }
  }
}

/// Writes `text` to the control file `path` in one `write`, as the kernel's cgroup files need.
func write(_ text: String, to path: String) throws(TransportError) {
  let descriptor = open(path, O_WRONLY | O_CLOEXEC)
  guard descriptor >= 0 else { throw .system(call: "open", errno: errno, context: path) }
  defer { close(descriptor) }
  let bytes = Array(text.utf8)
  guard Glibc.write(descriptor, bytes, bytes.count) == bytes.count else {
    throw .system(call: "write", errno: errno, context: path)
  }
}

/// The limits a worker is to be started under, and who enforces them.
///
/// ```swift
/// try WorkerProcess(name: "w0-0", executable: url, socketPath: path, secret: secret,
///   limits: LimitRequest(enforcer: enforcer, limits: ResourceLimits(files: 64))) { print($0.text) }
/// ```
package struct LimitRequest: Sendable {
  package let enforcer: LimitEnforcer
  package let limits: ResourceLimits

  package init(enforcer: LimitEnforcer, limits: ResourceLimits) { (self.enforcer, self.limits) = (enforcer, limits) }
}
