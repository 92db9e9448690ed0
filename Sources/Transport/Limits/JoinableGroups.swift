import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A worker's cgroup v1 groups, made with its limits before the template forks it, and each
/// group's `tasks` file open for writing: the template hands them to the new worker, which
/// joins its groups itself as its first act (`template.c`). The host moving another process
/// (`cgroup.procs`) takes the kernel's global lock on every thread group and waits for an RCU
/// grace period, about a millisecond per hierarchy; a task moving itself alone does not.
///
/// ```swift
/// let groups = try enforcer.groupsToJoin(limits, name: "w0-0")
/// defer { groups?.closeDescriptors() }
/// let started = try template.fork(request: "counter", descriptors: handed + (groups?.descriptors ?? []))
/// let enforced = try enforcer.enforce(limits, on: started.pid, name: "w0-0", joined: groups) { _ in true }
/// ```
package struct JoinableGroups: Sendable {
  /// The groups' directories, named `NAME-new-N` until the worker's pid is known.
  let directories: [String]
  /// Each group's `tasks` file, open for writing; the caller closes them once the fork is done.
  package let descriptors: [Int32]

  /// Closes the `tasks` files: the fork has them, or failed.
  package func closeDescriptors() {
    for descriptor in descriptors { close(descriptor) }
  }

  /// Removes the groups, when no worker was forked into them.
  package func remove() {
    for directory in directories { rmdir(directory) }
  }

  /// The groups renamed `NAME-PID` for worker `pid`, as a group made after the start is named;
  /// a group that could not be renamed keeps its name.
  func named(_ name: String, pid: pid_t) -> [String] {
    directories.map { directory in
      let renamed = (directory as NSString).deletingLastPathComponent + "/\(name)-\(pid)"
      return rename(directory, renamed) == 0 ? renamed : directory
    }
  }
}
