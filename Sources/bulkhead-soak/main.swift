import Bulkhead
import BulkheadDistribution
import Examples
import Foundation
import Synchronization
import Transport

// Restarts, retires and presents workers many times in a process of its own, and prints what
// the host holds before and after: file descriptors, threads, resident memory, zombie
// children and socket files. A test runs it, so that no other test's descriptors or threads
// blur the count.
//
//   bulkhead-soak restarts 1000       kill counter1's worker and send it an action, N times
//   bulkhead-soak retirements 1000    present and dismiss an ifLet child in a worker of its
//                                     own (warm 0: retired, its successor started), N times
//   bulkhead-soak presentations 1000  present and dismiss an ifLet child in a worker claimed
//                                     from the warm pool, N times; counted once idle: every
//                                     worker let go has ended and the pool has refilled

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("bulkhead-soak: \(message)\n".utf8))
  exit(64)
}

/// What the process holds at one moment.
struct Holdings: CustomStringConvertible {
  var descriptors = Self.count("/proc/self/fd")
  var threads = Self.count("/proc/self/task")
  var residentKilobytes = Self.residentKilobytes()
  var zombies = Self.children().filter { $0.state == "Z" }.count

  var description: String {
    "fds \(descriptors) threads \(threads) rss-kb \(residentKilobytes) zombies \(zombies)"
  }

  static func count(_ directory: String) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? -1
  }

  static func residentKilobytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") ?? -1
  }

  /// The children of this process, with their state (`Z`: exited, not reaped).
  static func children() -> [(pid: Int32, state: Substring)] {
    let me = "\(getpid())"
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry in
      guard let pid = Int32(entry),
        let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { return nil }
      // After the command's closing parenthesis: state, then the parent's pid.
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      return fields.count > 1 && fields[1] == me ? (pid, fields[0]) : nil
    }
  }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let modes = ["restarts", "retirements", "presentations"]
guard arguments.count == 2, let rounds = Int(arguments[1]), rounds > 0, modes.contains(arguments[0]) else {
  fail("usage: bulkhead-soak restarts|retirements|presentations COUNT")
}
let mode = arguments[0]
let restarts = mode == "restarts"
let worker = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  .deletingLastPathComponent().appendingPathComponent("child-worker")
let app = restarts ? "two-counters" : "detail"
let failures = Mutex(0)
/// Workers let go and not yet waited for.
let retired = Mutex<[Int32]>([])

func compose<Root: Reducer>(_ root: Root, placing placement: String) throws -> Composition {
  try Composition(
    root: root, placement: Placement(parsing: placement, file: "(soak)"),
    command: .executable(worker, app: app),
    restartPolicy: RestartPolicy(maximumRestarts: .max, within: .seconds(1)),
    onEvent: { event in
      if case .boundaryFailed = event { failures.withLock { $0 += 1 } }
      if case .actionFailed = event { failures.withLock { $0 += 1 } }
      if case let .workerRetired(_, pid) = event { retired.withLock { $0.append(pid) } }
    })
}

let composition: Composition
do {
  composition =
    try restarts
    ? compose(TwoCounters(), placing: "counter1")
    : compose(DetailPresenter(), placing: mode == "retirements" ? "detail\nwarm 0" : "detail")
} catch {
  fail("\(error)")
}
let counters = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
let presenter = Store(initialState: DetailPresenter.State()) { composition.compose(DetailPresenter()) }

/// One round: a crash and the action that finds it, or a presentation and its dismissal.
@MainActor func round() {
  if restarts {
    composition.killWorker(of: "counter1")
    counters.send(.counter1(.incrementButtonTapped))
  } else {
    presenter.send(.showDetailTapped)
    presenter.send(.detail(.descriptionChanged("soak")))
    presenter.send(.detail(.closeButtonTapped))
  }
}

/// Waits until the host is idle between presentations: every worker it let go has ended
/// (the host holds nothing of it) and the warm pool holds all its idle workers again.
func waitUntilIdle() {
  for pid in retired.withLock({ pids in defer { pids = [] }; return pids }) {
    guard composition.waitUntilEnded(worker: pid) else { fail("retired worker \(pid) did not end") }
  }
  guard composition.waitForWarmPool() else { fail("the warm pool did not refill") }
}

// Warm up first: lazily made things (metadata caches, thread pools) are not leaks.
let warmUp = 20
for _ in 0..<warmUp { round() }
if mode == "presentations" { waitUntilIdle() }
let before = Holdings()
for _ in 0..<rounds { round() }
switch mode {
case "retirements":
  // Waits for the successor started in the background after the last dismissal.
  presenter.send(.showDetailTapped)
  presenter.send(.detail(.descriptionChanged("ready")))
case "presentations":
  waitUntilIdle()
default:
  break
}
let after = Holdings()
let sockets = composition.socketDirectory.map(Holdings.count) ?? 0
composition.shutdown()
let stopped = Holdings()
// Every child gone: the workers were waited for by the shutdown; the template, which it
// lets go without waiting, is waited for here, by its pidfd.
let leftover = Holdings.children().filter { $0.state != "Z" && !ProcessWatch.waitForExit(of: $0.pid, milliseconds: 5_000) }
let applied = restarts ? counters.state.counter1.count : warmUp + rounds
print(
  "\(mode) \(rounds) applied \(applied - warmUp) failures \(failures.withLock { $0 }) sockets \(sockets)"
    + " leftover \(leftover.count) | before \(before) | after \(after) | shut down \(stopped)")
if ProcessInfo.processInfo.environment["BULKHEAD_SOAK_FDS"] != nil {
  var kinds: [String: Int] = [:]
  for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
    let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)")) ?? "?"
    kinds[String(target.prefix { $0 != "[" && $0 != ":" }), default: 0] += 1
  }
  print(kinds)
}
