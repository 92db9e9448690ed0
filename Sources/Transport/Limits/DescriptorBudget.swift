#if canImport(Glibc)
  import Glibc
#endif

/// The descriptors this process may open (`RLIMIT_NOFILE`), raised for many workers: the soft
/// limit (often 1,024) goes up to the hard one when more are needed, as a server raises its
/// own, and what cannot be had is said before anything starts.
///
/// ```swift
/// let limit = DescriptorBudget.raise(toHold: 8_300)  // the soft limit after: 8,300 or the hard limit
/// ```
package enum DescriptorBudget {
  /// Raises the soft limit to `needed` if it is lower, as far as the hard limit allows, and
  /// returns the soft limit in force after.
  package static func raise(toHold needed: Int) -> Int {
    var limits = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return Int.max }
    let wanted = rlim_t(max(needed, 0))
    if limits.rlim_cur < wanted {
      var raised = limits
      raised.rlim_cur = min(wanted, limits.rlim_max)
      if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
    }
    return Int(clamping: limits.rlim_cur)
  }

  /// How many descriptors this process has open now.
  package static var inUse: Int {
    var count = 0
    guard let directory = opendir("/proc/self/fd") else { return 0 }
    defer { closedir(directory) }
    while readdir(directory) != nil { count += 1 }
    // ".", "..", and the directory's own descriptor.
    return max(0, count - 3)
  }
}
