import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The limits one worker runs under, and where the kernel counts them: read after the worker
/// ended, to tell whether a limit ended it, then released.
package struct EnforcedLimits: Sendable, Equatable {
  package let limits: ResourceLimits
  package let mechanism: LimitMechanism
  /// The worker's cgroup directories (none with resource limits only).
  package let groups: [String]

  /// How many times the kernel's OOM killer ended a process of the worker's memory cgroup:
  /// `oom_kill` in `memory.events` (v2) or `memory.oom_control` (v1). 0 without a memory cgroup.
  package func memoryKills() -> Int {
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

  /// Removes the worker's cgroups; call once it has exited (a group with a process in it stays).
  package func release() {
    for group in groups { rmdir(group) }
  }
}
