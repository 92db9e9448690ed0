import Bulkhead
import BulkheadDistribution
import ExampleApps
import Examples
import Foundation
import Synchronization
import Transport
import TransportTestSupport

/// The worker executable built beside the tests.
let workerExecutable: URL = {
  let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
  let beside = directory.appendingPathComponent("child-worker")
  if FileManager.default.fileExists(atPath: beside.path) { return beside }
  return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    .appendingPathComponent(".build/debug/child-worker")
}()

/// Starts the workers that `placement` names for the example app `app`.
func composition(
  app: String, placement: String, events: Events = Events(),
  restartPolicy: RestartPolicy = .standard
) throws -> Composition {
  guard let example = ExampleApp.named(app) else { throw DistributionError.unknownBoundary(app, known: []) }
  return try Composition(
    root: example.root(), placement: Placement(parsing: placement, file: "\(app).placement"),
    command: .executable(workerExecutable, app: app),
    restartPolicy: restartPolicy, onEvent: events.append)
}

/// The events a composition reported, and a way to wait for one without sleeping.
typealias Events = EventLog<BoundaryEvent>

/// Waits for `task`'s effects to finish, at most `deadline`; past it cancels them and waits
/// for the cancellation to end them. Says whether they finished on their own.
func finish(_ task: StoreTask, within deadline: Duration) async -> Bool {
  await withTaskGroup(of: Bool.self) { group in
    group.addTask {
      await task.finish()
      return !Task.isCancelled
    }
    group.addTask {
      try? await Task.sleep(for: deadline)
      return false
    }
    let finished = await group.next() ?? false
    // Cancels `finish()`, which cancels the effects it waits for.
    group.cancelAll()
    return finished
  }
}

/// Whether every worker `composition` started has exited.
func allExited(_ pids: some Sequence<Int32>) -> Bool {
  pids.allSatisfy { ProcessWatch.waitForExit(of: $0, milliseconds: 5_000) }
}

/// Process `pid`'s command name and the fields of `/proc/PID/stat` that follow it (its state
/// first, then its parent's pid); nil once it is gone. The name is read between its brackets:
/// it may hold spaces.
func processStatus(of pid: Int32) -> (name: Substring, fields: [Substring])? {
  guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
  else { return nil }
  return (stat[stat.index(after: open)..<close], stat[stat.index(after: close)...].split(separator: " "))
}

/// The parent pid of process `pid`; nil once it is gone.
func parent(of pid: Int32) -> Int32? {
  processStatus(of: pid).flatMap { $0.fields.count > 1 ? Int32($0.fields[1]) : nil }
}

/// Processes seen as they started, each once.
final class SeenProcesses: Sendable {
  private let seen = Mutex<Set<SeenProcess>>([])

  /// Notes process `pid` as it runs now; one that has exited already is not noted.
  func note(_ pid: Int32) {
    guard let process = SeenProcess(pid: pid) else { return }
    seen.withLock { _ = $0.insert(process) }
  }

  var all: Set<SeenProcess> { seen.withLock { $0 } }
}

/// A process as it was seen running: its pid and when it started, which together name it even
/// once the pid has gone to another process. A long test under load starts more processes
/// (and threads, which take pids too) than there are pids, so a pid noted at its start may
/// name another process by its end.
struct SeenProcess: Sendable, Hashable {
  let pid: Int32
  let started: UInt64

  /// Process `pid` as it runs now; nil if no process has that pid.
  init?(pid: Int32) {
    guard let started = Self.startTime(of: pid) else { return nil }
    (self.pid, self.started) = (pid, started)
  }

  /// Whether it has exited, waited for up to `milliseconds`; true at once when its pid is free
  /// or names a process that started later.
  func waitForExit(milliseconds: Int32) -> Bool {
    guard Self.startTime(of: pid) == started else { return true }
    // It may exit, and its pid go to another process, just before the wait looks: asked again.
    return ProcessWatch.waitForExit(of: pid, milliseconds: milliseconds) || Self.startTime(of: pid) != started
  }

  /// When process `pid` started, in clock ticks after boot (field 22 of /proc/PID/stat).
  private static func startTime(of pid: Int32) -> UInt64? {
    processStatus(of: pid).flatMap { $0.fields.count > 19 ? UInt64($0.fields[19]) : nil }
  }
}


extension Timers {
  /// A random action the Timers app can take in `state`: add, remove, or tick a timer.
  static func randomAction(_ state: State, _ generator: inout SeededGenerator) -> Action {
    let ids = state.timers.ids
    switch Int.random(in: 0..<4, using: &generator) {
    case 0: return .addTimerTapped
    case 1 where !ids.isEmpty: return .removeTimerTapped(id: ids.randomElement(using: &generator)!)
    default:
      guard let id = ids.randomElement(using: &generator) else { return .addTimerTapped }
      return .timers(.element(id: id, action: .tick))
    }
  }
}
