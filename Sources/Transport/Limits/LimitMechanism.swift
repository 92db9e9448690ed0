import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// How this machine lets a host bound its workers, best first: a cgroup v2 subtree with the
/// memory and cpu controllers, cgroup v1 memory and cpu hierarchies the host may write, or
/// only resource limits set on each worker (`prlimit`), which bound reserved data rather than
/// resident memory and no CPU share.
package enum LimitMechanism: Sendable, Equatable, CustomStringConvertible {
  /// cgroup v2: the directory of the host's own cgroup, whose children get `memory.max` and `cpu.max`.
  case cgroup2(directory: String)
  /// cgroup v1: the host's directories in the memory hierarchy and, if mounted apart, the cpu one.
  case cgroup1(memory: String, cpu: String?)
  /// `RLIMIT_DATA`, `RLIMIT_NOFILE` and `RLIMIT_CPU` set on the worker before it serves.
  case resourceLimits

  package var description: String {
    switch self {
    case .cgroup2: "cgroup v2"
    case let .cgroup1(_, cpu): cpu == nil ? "cgroup v1 (memory)" : "cgroup v1 (memory, cpu)"
    case .resourceLimits: "resource limits (prlimit)"
    }
  }

  /// The best mechanism this process may use, read from `/proc/self/mountinfo` and
  /// `/proc/self/cgroup`. It only reads: nothing is created until a worker needs it.
  /// `BULKHEAD_LIMITS=rlimits` picks resource limits even where cgroups work, so that tests
  /// run the fallback too.
  package static func detect() -> LimitMechanism {
    if ProcessInfo.processInfo.environment[switchVariable] == "rlimits" { return .resourceLimits }
    let mounts = CgroupMounts.read()
    let own = CgroupMounts.ownPaths()
    if let unified = mounts.unified, let path = own[""] {
      let directory = unified + (path == "/" ? "" : path)
      let enabled = Set(Self.words(in: directory + "/cgroup.subtree_control"))
      if enabled.isSuperset(of: ["memory", "cpu"]), access(directory, W_OK) == 0 {
        return .cgroup2(directory: directory)
      }
    }
    if let memoryMount = mounts.v1["memory"], let memoryPath = own["memory"] {
      let memory = memoryMount + (memoryPath == "/" ? "" : memoryPath)
      guard access(memory, W_OK) == 0 else { return .resourceLimits }
      let cpu = mounts.v1["cpu"].flatMap { mount in own["cpu"].map { mount + ($0 == "/" ? "" : $0) } }
      return .cgroup1(memory: memory, cpu: cpu.flatMap { access($0, W_OK) == 0 ? $0 : nil })
    }
    return .resourceLimits
  }

  /// The environment variable that picks the fallback: `BULKHEAD_LIMITS=rlimits`.
  package static let switchVariable = "BULKHEAD_LIMITS"

  private static func words(in file: String) -> [String] {
    ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
  }
}

/// Where the cgroup hierarchies are mounted, and where this process sits in each.
private enum CgroupMounts {
  /// The cgroup2 mount point, and each v1 controller's mount point.
  static func read() -> (unified: String?, v1: [String: String]) {
    var unified: String?
    var v1: [String: String] = [:]
    let text = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
    for line in text.split(separator: "\n") {
      // "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPEROPTIONS"
      let halves = line.split(separator: " - ", maxSplits: 1).map { $0.split(separator: " ") }
      guard halves.count == 2, halves[0].count >= 5, halves[1].count >= 3 else { continue }
      let mountPoint = String(halves[0][4])
      switch halves[1][0] {
      case "cgroup2": unified = mountPoint
      case "cgroup":
        for option in halves[1][2].split(separator: ",") where ["memory", "cpu"].contains(option) {
          v1[String(option)] = mountPoint
        }
      default: continue
      }
    }
    return (unified, v1)
  }

  /// This process's cgroup in each hierarchy, by controller ("" for cgroup v2), from
  /// `/proc/self/cgroup` ("4:memory:/a/b", "1:cpu,cpuacct:/", "0::/").
  static func ownPaths() -> [String: String] {
    var paths: [String: String] = [:]
    let text = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
      guard fields.count == 3 else { continue }
      for controller in fields[1].split(separator: ",", omittingEmptySubsequences: false) {
        paths[String(controller)] = String(fields[2])
      }
    }
    return paths
  }
}
