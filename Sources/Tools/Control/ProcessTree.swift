import BulkheadDistribution
import Foundation

/// The workers that placed workers start for the boundaries placed inside theirs (nested
/// placement), as /proc shows them. The host knows only its own workers, each worker only its
/// children; the kernel knows them all, even under a worker that has stopped answering, so
/// `ps` asks it rather than the workers.
///
/// ```swift
/// for worker in ProcessTree.scan().workers(under: outerPID) { print(worker.depth, worker.boundary) }
/// ```
struct ProcessTree {
  /// A worker below another worker.
  struct Worker: Equatable {
    let pid: Int32
    let parent: Int32
    /// The boundary it serves, from its command line (`--bulkhead-worker APP BOUNDARY`).
    let boundary: String
    /// 1 for a worker of the host, 2 for a worker of one of those, and so on.
    let depth: Int
  }

  /// Every process's children, by parent pid.
  private let children: [Int32: [Int32]]

  /// The process tree as it is now.
  static func scan() -> ProcessTree {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    var children: [Int32: [Int32]] = [:]
    for pid in entries.compactMap(Int32.init) {
      if let parent = ProcessState(of: pid)?.parent { children[parent, default: []].append(pid) }
    }
    return ProcessTree(children: children)
  }

  /// The workers below the worker `pid` (at `depth`), depth first, each after its parent.
  func workers(under pid: Int32, depth: Int = 1) -> [Worker] {
    (children[pid] ?? []).sorted().flatMap { child -> [Worker] in
      guard let boundary = Self.boundary(of: child) else { return [] }
      return [Worker(pid: child, parent: pid, boundary: boundary, depth: depth + 1)]
        + workers(under: child, depth: depth + 1)
    }
  }

  /// The boundary a worker process serves, from its command line; nil for any other process.
  private static func boundary(of pid: Int32) -> String? {
    guard let line = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
    let arguments = line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    guard let role = try? WorkerCommand.Role(parsing: Array(arguments.drop { $0 != WorkerCommand.Role.flag })) else {
      return nil
    }
    return role.boundary
  }
}
