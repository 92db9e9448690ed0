import Bulkhead
import BulkheadDistribution
import Foundation
import Synchronization

/// A study of an app's boundaries: its script run with every boundary in the host, then with
/// each boundary in a worker of its own, then again with a worker killed and with one stalled
/// halfway through. Each run measures per-action latency, bytes crossed and host CPU, and
/// what the fault did.
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

  package init(
    app: ScriptedApp, command: WorkerCommand, rounds: Int = 10, deadline: Duration = .milliseconds(500),
    limits: Placement? = nil
  ) {
    self.app = app
    self.command = command
    self.rounds = max(1, rounds)
    self.deadline = deadline
    self.limits = limits
  }

  /// Every run of the study, in order: in the host, each boundary in a worker, then each
  /// boundary killed and stalled in its worker. A boundary that cannot be placed on its own
  /// (one nested in another's child, say) is left out.
  package func run() async throws -> [StudyRun] {
    var runs = [try await measure(placing: [], fault: nil, rounds: rounds)]
    // Half the actions of one pass of the script, where the faults go.
    let halfway = max(1, runs[0].actions / rounds / 2)
    for boundary in app.boundaries.map(\.path) {
      guard let placed = try? await measure(placing: [boundary], fault: nil, rounds: rounds) else { continue }
      runs.append(placed)
      for fault in [StudyRun.Fault.kill(boundary: boundary), .stall(boundary: boundary)] {
        runs.append(try await measure(placing: [boundary], fault: (fault, halfway), rounds: 1))
      }
    }
    return runs
  }

  private func measure(placing boundaries: [String], fault: (StudyRun.Fault, at: Int)?, rounds: Int) async throws -> StudyRun {
    let entries = boundaries.map { path in
      let limited = limits?.entries.first { $0.path == path }
      return Placement.Entry(
        path: path, deadline: deadline, memoryLimit: limited?.memoryLimit, cpuPercent: limited?.cpuPercent,
        fileLimit: limited?.fileLimit)
    }
    let limitWords = entries.flatMap { entry in
      [entry.memoryLimit.map { "\(ResourceLimit.memory(bytes: $0))" }, entry.cpuPercent.map { "cpu \($0)%" }, entry.fileLimit.map { "files \($0)" }]
        .compactMap(\.self)
    }
    let recorder = StudyRecorder(
      StudyRun(
        placement: boundaries.isEmpty
          ? "in the host"
          : boundaries.joined(separator: ", ") + " in a worker" + (limitWords.isEmpty ? "" : ", " + limitWords.joined(separator: " ")),
        placed: boundaries, fault: fault?.0))
    let placement = Placement(file: "study", entries: entries)
    let composition = try boundaries.isEmpty
      ? nil
      : Composition(root: app.root(), placement: placement, command: command, onEvent: recorder.note)
    defer { composition?.shutdown() }
    let observer = RootObserver(
      willReduce: { index in
        recorder.willReduce()
        if let fault, index == fault.at, let composition { Self.inject(fault.0, into: composition, recorder: recorder) }
      },
      didReduce: { _, duration in recorder.didReduce(duration) })
    recorder.start()
    for _ in 0..<rounds {
      await app.run(in: composition, observer: observer) { _ in }
    }
    return recorder.finish(
      bytesCrossed: boundaries.reduce(0) { total, boundary in
        let crossed = composition?.statistics(of: boundary)
        return total + (crossed.map { $0.bytesSent + $0.bytesReceived } ?? 0)
      })
  }

  /// Injects `fault` into the boundary's first worker; when none is running (an `ifLet`
  /// child that is not there), the run says the fault hit nothing.
  nonisolated private static func inject(_ fault: StudyRun.Fault, into composition: Composition, recorder: StudyRecorder) {
    guard let pid = composition.processes.first(where: { $0.boundary == fault.boundary })?.pids.first, pid > 0 else {
      return recorder.missed()
    }
    recorder.mark(.fault, "\(fault)")
    switch fault {
    case let .kill(boundary): composition.killWorker(of: boundary)
    case .stall: kill(pid, SIGSTOP)
    }
  }

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

  func mark(_ kind: StudyRun.Moment.Kind, _ text: String) {
    state.withLock { state in
      state.run.moments.append(StudyRun.Moment(offset: .now - state.started, kind: kind, text: text))
    }
  }

  /// The fault found no worker to hit.
  func missed() {
    state.withLock { $0.run.faultHitNothing = true }
  }

  /// A supervisor's event, as a moment of the run.
  func note(_ event: BoundaryEvent) {
    let kind: StudyRun.Moment.Kind? =
      switch event {
      case .workerStalled: .stall
      case .limitExceeded: .limit
      case .workerExited: .exit
      case .workerRestarted: .restart
      case .effectsLost: .effectsLost
      case .boundaryFailed, .actionFailed: .failure
      case .workerStarted, .workerRetired, .connectionRefused, .moved: nil
      }
    guard let kind else { return }
    let text: String =
      if case let .effectsLost(_, count) = event { "\(count) effect(s) lost" } else { "\(event)" }
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
