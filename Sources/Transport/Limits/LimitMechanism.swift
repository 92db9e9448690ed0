import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// How this machine lets a host bound its workers, best first: a cgroup v2 subtree with the
/// memory and cpu controllers, cgroup v1 memory (and cpu) hierarchies the host may write, or
/// only resource limits set on each worker (`prlimit`). Descriptors are always bounded by
/// `RLIMIT_NOFILE`; CPU, where no cgroup can throttle it, by the host (`CPUThrottle`).
///
/// ```swift
/// let mechanism = LimitMechanism.detect()
/// print(mechanism)  // "cgroup v1 (memory.limit_in_bytes, cpu.cfs_quota_us), RLIMIT_NOFILE"
/// ```
package enum LimitMechanism: Sendable, Equatable, CustomStringConvertible {
  /// cgroup v2: the directory of the host's own cgroup, whose children get `memory.max` and `cpu.max`.
  case cgroup2(directory: String)
  /// cgroup v1: the host's directory in the memory hierarchy and, if the host may write it, in the cpu one.
  case cgroup1(memory: String, cpu: String?)
  /// `RLIMIT_DATA` and `RLIMIT_NOFILE` set on the worker before it serves; CPU throttled by the host.
  case resourceLimits

  /// What bounds memory: the cgroup file, or `RLIMIT_DATA`.
  package var memory: String {
    switch self {
    case .cgroup2: "memory.max"
    case .cgroup1: "memory.limit_in_bytes"
    case .resourceLimits: "RLIMIT_DATA"
    }
  }

  /// What bounds CPU: the cgroup file, or the host stopping and continuing the worker.
  package var cpu: String {
    switch self {
    case .cgroup2: "cpu.max"
    case .cgroup1(_, .some): "cpu.cfs_quota_us"
    case .cgroup1(_, .none), .resourceLimits: "the host (SIGSTOP/SIGCONT)"
    }
  }

  /// Whether the host throttles CPU itself: no cgroup does it.
  package var hostThrottlesCPU: Bool {
    switch self {
    case .cgroup2, .cgroup1(_, .some): false
    case .cgroup1(_, .none), .resourceLimits: true
    }
  }

  /// The least memory limit a worker can run under: resource limits count every thread's
  /// reserved stack (8 MB each) as data, and a Swift worker runs several threads.
  package var memoryFloor: Int {
    switch self {
    case .cgroup2, .cgroup1: 16 << 20
    case .resourceLimits: 64 << 20
    }
  }

  /// "cgroup v2", "cgroup v1" or "resource limits".
  package var kind: String {
    switch self {
    case .cgroup2: "cgroup v2"
    case .cgroup1: "cgroup v1"
    case .resourceLimits: "resource limits"
    }
  }

  package var description: String { "\(kind): memory by \(memory), cpu by \(cpu), files by RLIMIT_NOFILE" }

  /// The best mechanism this process may use, read from `/proc/self/mountinfo` and
  /// `/proc/self/cgroup`. It only reads: nothing is created until a worker needs it.
  /// `BULKHEAD_LIMITS=rlimits` picks resource limits even where cgroups work, so that people
  /// can see the fallback at work, and so does `chosen` in a task, so that tests run it too.
  package static func detect() -> LimitMechanism {
    if let chosen { return chosen }
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

  /// The mechanism `detect()` gives in this task, whatever the machine offers: for tests.
  ///
  /// ```swift
  /// try LimitMechanism.$chosen.withValue(.resourceLimits) { try Composition(…) }
  /// ```
  @TaskLocal package static var chosen: LimitMechanism?

  /// The environment variable that picks the fallback: `BULKHEAD_LIMITS=rlimits`.
  package static let switchVariable = "BULKHEAD_LIMITS"

  /// The directories the host makes its workers' cgroups in (none with resource limits).
  package var roots: [String] {
    switch self {
    case let .cgroup2(directory): [directory]
    case let .cgroup1(memory, cpu): [memory] + (cpu.map { [$0] } ?? [])
    case .resourceLimits: []
    }
  }

  private static func words(in file: String) -> [String] {
    ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
  }
}

/// Where the cgroup hierarchies are mounted, and where a process sits in each.
enum CgroupMounts {
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

  /// Process `pid`'s cgroup in each hierarchy (this process's by default), by controller
  /// ("" for cgroup v2), from `/proc/PID/cgroup` ("4:memory:/a/b", "1:cpu,cpuacct:/", "0::/").
  static func ownPaths(of pid: String = "self") -> [String: String] {
    var paths: [String: String] = [:]
    let text = (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? ""
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
