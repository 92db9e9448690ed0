import Foundation
import Synchronization
internal import Transport

/// The socket directories of this process's compositions that have not shut down, removed if
/// the process exits first. A worker that runs workers of its own (nested placement) exits as
/// soon as its host closes its input (`WorkerLaunch`), maybe while its own composition is
/// still shutting down; a process killed runs nothing, and the next `SocketDirectory.create()`
/// of the same user sweeps what it left.
///
/// ```swift
/// DirectoriesAtExit.keep(directory)   // when the composition starts
/// DirectoriesAtExit.forget(directory) // once `shutdown()` has removed it
/// ```
enum DirectoriesAtExit {
  private struct Kept {
    var directories: [String: SocketDirectory] = [:]
    var isInstalled = false
  }

  private static let kept = Mutex(Kept())

  /// Removes `directory` when the process exits, unless forgotten first.
  static func keep(_ directory: SocketDirectory) {
    let install = kept.withLock { kept in
      kept.directories[directory.path] = directory
      defer { kept.isInstalled = true }
      return !kept.isInstalled
    }
    if install { atexit { DirectoriesAtExit.removeAll() } }
  }

  /// `directory` is removed already.
  static func forget(_ directory: SocketDirectory) {
    _ = kept.withLock { $0.directories.removeValue(forKey: directory.path) }
  }

  private static func removeAll() {
    let directories = kept.withLock { kept in
      defer { kept.directories = [:] }
      return kept.directories
    }
    for directory in directories.values { directory.remove() }
  }
}
