import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The limits one worker runs under, and where the kernel counts them: read after the worker
/// ended, to tell whether a limit ended it, then released.
///
/// ```swift
/// let enforced = try enforcer.enforce(limits, on: pid, name: "w0-0") { worker.send(signal: $0) }
/// // … the worker exited:
/// if enforced.memoryKills() > 0 { print("the OOM killer ended it") }
/// enforced.release()
/// ```
package struct EnforcedLimits: Sendable {
  package let limits: ResourceLimits
  package let mechanism: LimitMechanism
  /// The worker's cgroup directories (none with resource limits only).
  package let groups: [String]
  /// The host's throttle holding the worker to its CPU share, and its token there.
  let throttle: (CPUThrottle, Int)?

  /// Whether the worker's memory is bounded by `RLIMIT_DATA`, where an allocation past the
  /// limit fails inside the worker: Swift then prints "failed to allocate" and aborts.
  var endsByFailedAllocation: Bool { limits.memoryBytes != nil && mechanism == .resourceLimits }

  /// How many times the kernel's OOM killer ended a process of the worker's memory cgroup:
  /// `oom_kill` in `memory.events` (v2) or `memory.oom_control` (v1). 0 without a memory cgroup.
  func memoryKills() -> Int {
    for group in groups {
      for file in ["memory.events", "memory.oom_control"] {
        guard let text = try? String(contentsOfFile: group + "/" + file, encoding: .utf8) else { continue }
        for line in text.split(separator: "\n") {
          let words = line.split(separator: " ")
          if words.count == 2, words[0] == "oom_kill", let count = Int(words[1]) { return count }
        }
      }
    }
    return 0
  }

  /// Removes the worker's cgroups and lets the throttle go; call once it has exited (a group
  /// with a process in it stays).
  func release() {
    if let (throttle, token) = throttle { throttle.remove(token) }
    for group in groups { rmdir(group) }
  }
}
