import Foundation
import Synchronization
import Transport
#if canImport(Glibc)
  import Glibc
#endif

/// The echo worker built beside the tests.
let echoWorker: URL = {
  let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
  let beside = directory.appendingPathComponent("transport-echo-worker")
  if FileManager.default.fileExists(atPath: beside.path) { return beside }
  return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    .appendingPathComponent(".build/debug/transport-echo-worker")
}()

/// The entries of a directory under /proc (open descriptors, threads), without the dot
/// entries and without the descriptor that reads the directory.
func procEntries(_ path: String) -> [String] {
  guard let directory = opendir(path) else { return [] }
  let own = dirfd(directory)
  var names: [String] = []
  while let entry = readdir(directory) {
    let name = entryName(entry)
    if name != "." && name != ".." && name != String(own) { names.append(name) }
  }
  closedir(directory)
  return names
}

/// This process's open file descriptors, each with what it is open on.
func openDescriptors() -> [Int32: String] {
  var result: [Int32: String] = [:]
  for name in procEntries("/proc/self/fd") {
    guard let fd = Int32(name) else { continue }
    var buffer = [CChar](repeating: 0, count: 256)
    let count = readlink("/proc/self/fd/\(name)", &buffer, buffer.count - 1)
    result[fd] = count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
  }
  return result
}

/// The number of threads of this process.
func threadCount() -> Int { procEntries("/proc/self/task").count }

/// Whether the child process that `pidfd` names has been reaped. Asked by pidfd, not by pid:
/// the kernel gives a reaped child's pid to a later process, and under load the numbers wrap
/// within a long test, so by then the pid may name another child of this process, running.
/// Looks without reaping (WNOWAIT), so it takes nothing from the runtime's reaper.
func hasBeenReaped(pidfd: Int32) -> Bool {
  var info = siginfo_t()
  // P_PIDFD, which Glibc declares only under _GNU_SOURCE.
  let byPidfd = idtype_t(rawValue: 3)
  return waitid(byPidfd, id_t(pidfd), &info, WEXITED | WNOHANG | WNOWAIT) == -1 && errno == ECHILD
}

/// Something that happens once, with a value, and a way to wait for it without polling.
final class Event<Value: Sendable>: Sendable {
  private struct State {
    var value: Value?
    var nextWaiter = 0
    var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
  }
  private let state = Mutex(State())

  func fire(_ value: Value) {
    let waiters = state.withLock { state in
      state.value = value
      defer { state.waiters = [:] }
      return state.waiters.values
    }
    for waiter in waiters { waiter.resume(returning: value) }
  }

  /// The value, or nil if it has not come within `limit`: a deadline for something that
  /// should happen, so a test that fails says so instead of hanging.
  func wait(atMost limit: Duration) async -> Value? {
    await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
      let (value, id) = state.withLock { state -> (Value?, Int?) in
        if let value = state.value { return (value, nil) }
        state.nextWaiter += 1
        state.waiters[state.nextWaiter] = continuation
        return (nil, state.nextWaiter)
      }
      guard let id else { return continuation.resume(returning: value) }
      Task {
        try? await Task.sleep(for: limit)
        let expired = state.withLock { $0.waiters.removeValue(forKey: id) }
        expired?.resume(returning: nil)
      }
    }
  }
}
