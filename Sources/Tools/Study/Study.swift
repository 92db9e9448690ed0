import Bulkhead
import BulkheadDistribution
import Foundation
import Synchronization

/// A study of an app's boundaries: its script run with every boundary in the host, then with
/// each boundary in a worker of its own, then again with a worker killed and with one stalled
/// at one action of the script (halfway through, unless `faultAt` says which). Each run
/// measures per-action latency, bytes crossed and host CPU, and what the fault did.
///
/// ```swift
/// let study = Study(app: twoCounters, command: .thisExecutable(app: "two-counters"))
/// let runs = try await study.run()
/// print(StudyTable(runs).text)
/// try StudyReport(app: "two-counters", runs: runs).html.write(toFile: "study.html", atomically: true, encoding: .utf8)
/// ```
@MainActor
package struct Study {
  package let app: ScriptedApp
  package let command: WorkerCommand
  /// How many times the script runs for each placement without a fault, for enough
  /// latencies to rank.
  package let rounds: Int
  /// The deadline of a studied boundary: how long a stalled worker holds the action up.
  package let deadline: Duration
  /// The limits each boundary runs under in its worker: those this placement sets for it.
  package let limits: Placement?
  /// The action of one pass of the script that the faults land on, counted from 1; nil for
  /// the one halfway through.
  package let faultAt: Int?
  /// Whether placements are compared by moving boundaries in one running composition
  /// (`runLive`) rather than by starting one composition per placement.
  package let live: Bool

  package init(
    app: ScriptedApp, command: WorkerCommand, rounds: Int = 10, deadline: Duration = .milliseconds(500),
    limits: Placement? = nil, faultAt: Int? = nil, live: Bool = false
  ) {
    self.app = app
    self.command = command
    self.rounds = max(1, rounds)
    self.deadline = deadline
    self.limits = limits
    self.faultAt = faultAt
    self.live = live
  }

  /// Every run of the study, in order: in the host, each boundary in a worker, then each
  /// boundary killed and stalled in its worker; then each boundary inside another placed in
  /// the worker of the nearest one (a process tree, two deep), and that inner worker killed. A
  /// placement that cannot be made (one nested in another's child, say) is left out.
  /// `progress` hears each run as it starts.
  ///
  /// - Throws: `DistributionError.usage` when `faultAt` is past the script's last action.
  package func run(progress: (String) -> Void = { _ in }) async throws -> [StudyRun] {
    if live { return try await runLive(progress: progress) }
    let boundaries = app.boundaries.map(\.path)
    let trees = boundaries.compactMap { boundary in
      boundaries.last { boundary.hasPrefix($0 + ".") }.map { (outer: $0, inner: boundary) }
    }
    let total = 1 + 3 * boundaries.count + 2 * trees.count
    var count = RunCount(total: total)
    func say(_ text: String) { progress(count.next(text)) }
    say("every boundary in the host, the script \(rounds) time(s)")
    var runs = [try await measure(placing: [], fault: nil, rounds: rounds)]
    let (at, actions) = try faultAction(inHost: runs[0])
    func study(placing placed: [String], faults: [StudyRun.Fault], in words: String) async throws {
      say("\(words), the script \(rounds) time(s)")
      guard let measured = try? await measure(placing: placed, fault: nil, rounds: rounds) else {
        progress("  \(words) cannot be placed: left out")
        count.skip(faults.count)
        return
      }
      runs.append(measured)
      for fault in faults {
        say("\(fault) at action \(at) of \(actions)")
        runs.append(try await measure(placing: placed, fault: (fault, at), rounds: 1))
      }
    }
    for boundary in boundaries {
      try await study(placing: [boundary], faults: [.kill(boundary: boundary), .stall(boundary: boundary)], in: "\(boundary) in a worker")
    }
    for tree in trees {
      try await study(
        placing: [tree.outer, tree.inner], faults: [.kill(boundary: tree.inner)],
        in: "\(tree.inner) in a worker inside \(tree.outer)'s")
    }
    return runs
  }

  /// `fault.at` counts the script's actions from 1.
  /// The action the faults land on, and the number of actions in one pass of the script, as
  /// the run with every boundary in the host counted them.
  ///
  /// - Throws: `DistributionError.usage` when `faultAt` is past the script's last action.
  func faultAction(inHost run: StudyRun) throws -> (at: Int, actions: Int) {
    let actions = run.actions / rounds
    let at = faultAt ?? max(1, actions / 2)
    guard (1...max(1, actions)).contains(at) else {
      throw DistributionError.usage(
        "--fault-at \(at): one pass of \(app.name)'s script runs \(actions) action(s); choose one from 1 to \(actions)")
    }
    return (at, actions)
  }

  /// In a `live` composition, `boundaries` are the ones in workers now.
  func measure(
    placing boundaries: [String], fault: (StudyRun.Fault, at: Int)?, rounds: Int, live: LiveComposition? = nil
  ) async throws -> StudyRun {
    let entries = boundaries.map(entry(for:))
    let limitWords = entries.flatMap { entry in
      [entry.memoryLimit.map { "\(ResourceLimit.memory(bytes: $0))" }, entry.cpuPercent.map { "cpu \($0)%" }, entry.fileLimit.map { "files \($0)" }]
        .compactMap(\.self)
    }
    let recorder = StudyRecorder(
      StudyRun(
        placement: Self.words(placing: boundaries) + (limitWords.isEmpty ? "" : ", " + limitWords.joined(separator: " ")),
        placed: boundaries, fault: fault?.0, faultAction: fault?.at))
    let composition: Composition?
    if let live {
      live.listen(recorder)
      composition = live.composition
    } else {
      composition = try boundaries.isEmpty
        ? nil
        : Composition(
          root: app.root(), placement: Placement(file: "study", entries: entries), command: command, onEvent: recorder.note)
    }
    defer { if live == nil { composition?.shutdown() } }
    func crossed() -> Int {
      boundaries.reduce(0) { total, boundary in
        total + (composition?.statistics(of: boundary).map { $0.bytesSent + $0.bytesReceived } ?? 0)
      }
    }
    let crossedBefore = crossed()
    let observer = RootObserver(
      willReduce: { index in
        recorder.willReduce()
        if let fault, index == fault.at - 1, let composition { Self.inject(fault.0, into: composition, recorder: recorder) }
      },
      didReduce: { _, duration in recorder.didReduce(duration) })
    recorder.start()
    for _ in 0..<rounds {
      await app.run(in: composition, observer: observer) { _ in }
    }
    return recorder.finish(bytesCrossed: crossed() - crossedBefore)
  }

  /// `path`'s placement entry: the study's deadline, and the limits the app's placement gives it.
  func entry(for path: String) -> Placement.Entry {
    let limited = limits?.entries.first { $0.path == path }
    return Placement.Entry(
      path: path, deadline: deadline, memoryLimit: limited?.memoryLimit, cpuPercent: limited?.cpuPercent,
      fileLimit: limited?.fileLimit)
  }

  /// How a run's placement reads: "in the host", "sync in a worker", "list.rows in a worker
  /// inside list's".
  private static func words(placing boundaries: [String]) -> String {
    switch boundaries.count {
    case 0: "in the host"
    case 1: "\(boundaries[0]) in a worker"
    default: "\(boundaries[boundaries.count - 1]) in a worker inside \(boundaries[boundaries.count - 2])'s"
    }
  }

  /// Injects `fault` into the boundary's first running worker (of a pool, the lowest index):
  /// one of the host's, or one that a worker of the host started for a boundary inside its
  /// own (/proc shows it); when none is running (an `ifLet` child that is not there), the run
  /// says the fault hit nothing.
  nonisolated private static func inject(_ fault: StudyRun.Fault, into composition: Composition, recorder: StudyRecorder) {
    let own = composition.processes.first { $0.boundary == fault.boundary }?.pids ?? []
    if let (index, pid) = own.enumerated().first(where: { $0.element > 0 }) {
      recorder.hit(worker: index, pid: pid, by: fault)
      switch fault {
      case let .kill(boundary): composition.killWorker(of: boundary, index: index)
      case .stall: kill(pid, SIGSTOP)
      }
      return
    }
    let outer = composition.processes.flatMap { $0.pids.filter { $0 > 0 } }
    let inner = ProcessTree.scan().innerWorkers(under: outer).first { $0.worker.boundary == fault.boundary }
    guard let inner else { return recorder.missed() }
    recorder.hit(worker: inner.index, pid: inner.worker.pid, by: fault)
    switch fault {
    case .kill: kill(inner.worker.pid, SIGKILL)
    case .stall: kill(inner.worker.pid, SIGSTOP)
    }
  }

}

/// Numbers the study's runs as it says them: "[3/7] kill counter1 at action 2 of 4".
struct RunCount {
  let total: Int
  private var number = 1

  init(total: Int) { self.total = total }

  /// `text` as the next run's line.
  mutating func next(_ text: String) -> String {
    defer { number += 1 }
    return "[\(number)/\(total)] \(text)"
  }

  /// Runs that will not be made.
  mutating func skip(_ runs: Int) { number += runs }
}

/// Collects one run's measurements from the store's thread and the supervisors' events.
final class StudyRecorder: Sendable {
  private struct State {
    var run: StudyRun
    var started = ContinuousClock.now
    var actionStart = ContinuousClock.now
    var cpuStart = Duration.zero
    var isReducing = false
  }

  private let state: Mutex<State>

  init(_ run: StudyRun) {
    state = Mutex(State(run: run))
  }

  func start() {
    state.withLock { $0.started = .now }
  }

  func willReduce() {
    let cpu = Self.processCPUTime()
    state.withLock { state in
      state.isReducing = true
      state.actionStart = .now
      state.cpuStart = cpu
    }
  }

  func didReduce(_ duration: Duration) {
    let cpu = Self.processCPUTime()
    state.withLock { state in
      state.isReducing = false
      state.run.latencies.append(duration)
      state.run.starts.append(state.actionStart - state.started)
      state.run.hostCPU += cpu - state.cpuStart
    }
  }

  /// The host's CPU time so far, all threads.
  private static func processCPUTime() -> Duration {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
  }

  /// The fault hit worker `index` of its boundary's pool, process `pid`.
  func hit(worker index: Int, pid: Int32, by fault: StudyRun.Fault) {
    state.withLock { state in
      state.run.faultedWorker = index
      state.run.moments.append(
        StudyRun.Moment(offset: .now - state.started, kind: .fault, text: "\(fault) worker \(index) (pid \(pid))"))
    }
  }

  /// The fault found no worker to hit.
  func missed() {
    state.withLock { $0.run.faultHitNothing = true }
  }

  /// A supervisor's event, as a moment of the run.
  func note(_ event: BoundaryEvent) {
    let kind: StudyRun.Moment.Kind? =
      switch event.innermost {
      case .workerStalled: .stall
      case .limitExceeded: .limit
      case .workerExited: .exit
      case .workerRestarted: .restart
      case .effectsLost: .effectsLost
      case .boundaryFailed, .actionFailed: .failure
      case .workerStarted, .workerRetired, .connectionRefused, .nested, .moved: nil
      }
    guard let kind else { return }
    let text: String =
      if case let .effectsLost(_, count) = event.innermost { "\(count) effect(s) lost" } else { "\(event)" }
    state.withLock { state in
      state.run.moments.append(StudyRun.Moment(offset: .now - state.started, kind: kind, text: text))
      if kind == .restart, state.isReducing { state.run.actionsDelayedByRestart += 1 }
    }
  }

  func finish(bytesCrossed: Int) -> StudyRun {
    state.withLock { state in
      state.run.bytesCrossed = bytesCrossed
      state.run.duration = .now - state.started
      return state.run
    }
  }
}
