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

  /// A worker below one of the host's, numbered among the workers of its boundary in the
  /// order `ps` lists them: `index` is what `./compose.sh kill APP BOUNDARY INDEX` names.
  struct NumberedWorker: Equatable {
    let worker: Worker
    let index: Int
  }

  /// Every worker below the host's workers in `snapshot` (in placement and pool order), depth
  /// first, numbered by boundary.
  func innerWorkers(below snapshot: Wire.ControlSnapshot) -> [NumberedWorker] {
    innerWorkers(under: snapshot.boundaries.flatMap { $0.workers.compactMap { $0.pid.map(Int32.init) } })
  }

  /// Every worker below the host's workers `outer` (in placement and pool order), depth first,
  /// numbered by boundary.
  func innerWorkers(under outer: [Int32]) -> [NumberedWorker] {
    var counts: [String: Int] = [:]
    return outer.flatMap { workers(under: $0) }.map { worker in
      defer { counts[worker.boundary, default: 0] += 1 }
      return NumberedWorker(worker: worker, index: counts[worker.boundary, default: 0])
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
