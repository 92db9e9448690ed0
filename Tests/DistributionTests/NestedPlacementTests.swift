import Bulkhead
@testable import BulkheadDistribution
import BulkheadTesting
import Examples
import Foundation
import Synchronization
import TestThreads
import Testing
import Transport
import TransportTestSupport

/// A boundary placed inside a placed boundary (`profile.avatar` with `profile`) runs in a
/// worker that the outer worker starts and supervises: a process tree. Faults stay at the
/// nearest parent, nothing committed is lost or doubled, and nothing is left behind.
@MainActor
@Suite(.serialized, .onItsOwnThread) struct NestedPlacementTests {
  static let placement = "profile\nprofile.avatar\n"

  /// The `n`th UUID of an incrementing generator.
  static func uuid(_ n: Int) -> UUID {
    UUID(uuidString: "00000000-0000-0000-0000-\(String(format: "%012x", n))")!
  }

  @Test func theEntriesInsideABoundaryTravelAsOneLineWithTheirSettingsAndPolicy() throws {
    let placement = try Placement(
      parsing: "profile\nprofile.avatar deadline 300ms startup 5s\nsettings\n", file: "account.placement")
    let policy = RestartPolicy(maximumRestarts: 7, within: .seconds(30))
    let inner = InnerPlacement(inside: "profile", of: placement, policy: policy)
    #expect(inner.entries == [Placement.Entry(path: "profile.avatar", deadline: .milliseconds(300), startupDeadline: .seconds(5), line: 2)])
    #expect(!inner.brief.isEmpty && !inner.brief.contains { $0.isNewline })
    #expect(try InnerPlacement(brief: inner.brief) == inner)
    #expect(InnerPlacement(inside: "settings", of: placement, policy: policy).brief == "")
    #expect(try InnerPlacement(brief: "").entries.isEmpty)
    #expect(throws: DistributionError.self) { try InnerPlacement(brief: "not a placement") }
  }

  @Test func theInnerWorkerIsAChildOfTheOuterWorkerAndTheHostSeesOnlyTheOuter() async throws {
    let composition = try composition(app: "account", placement: Self.placement)
    defer { composition.shutdown() }
    #expect(composition.processes.map(\.boundary) == ["profile"])
    let outer = try #require(composition.processes.first?.pids.first)
    #expect(parent(of: outer) == getpid())
    let inner = innerWorkers(of: outer)
    #expect(inner.map(\.boundary) == ["profile.avatar"])
    let store = Store(initialState: Account.State()) { composition.compose(Account()) }
    await store.send(.profile(.avatar(.edited))).finish()
    #expect(store.state.profile.avatar.edits == 1)
  }

  @Test func anInnerEffectsActionGoesThroughEveryParent() async throws {
    let composition = try composition(app: "account", placement: Self.placement)
    defer { composition.shutdown() }
    let seen = Log<Account.Action>()
    let store = Store(initialState: Account.State()) {
      Reduce<Account.State, Account.Action> { _, action in seen.append(action); return .none }
      composition.compose(Account())
    } withDependencies: { $0.continuousClock = ImmediateClock() }
    await store.send(.profile(.avatar(.edited))).finish()
    await store.send(.profile(.avatar(.uploadTapped))).finish()
    // The upload's action entered at the root, and the profile (in the outer worker) and the
    // root each saw it after the avatar (in the inner worker) ran it.
    #expect(seen.all.last == .profile(.avatar(.uploaded(edits: 1))))
    #expect(store.state.profile.avatar.uploadedEdits == 1)
    #expect(store.state.profile.avatar.uploading == 0)
    #expect(store.state.profile.uploadsSeen == 1)
    #expect(store.state.uploadsSeen == 1)
  }

  @Test func aTestStoresClockAndDependenciesReachTheInnerWorkerThroughTheOuter() async throws {
    let clock = TestClock()
    let composition = try composition(app: "account", placement: Self.placement)
    defer { composition.shutdown() }
    let store = TestStore(initialState: Account.State()) {
      composition.compose(Account())
    } withDependencies: {
      $0.continuousClock = clock
      $0.uuid = .incrementing
    }
    await store.send(.profile(.avatar(.edited))) { $0.profile.avatar.edits = 1 }
    // The test's UUID generator answered the inner worker's question through the outer's.
    await store.send(.profile(.avatar(.uploadTapped))) {
      $0.profile.avatar.uploading = 1
      $0.profile.avatar.uploadID = Self.uuid(0)
    }
    // The inner worker's sleep reached the test's clock through the outer worker's before
    // the send returned: advancing less wakes nothing, advancing enough delivers the upload.
    await clock.advance(by: .milliseconds(4))
    await clock.advance(by: .milliseconds(1))
    await store.receive(.profile(.avatar(.uploaded(edits: 1)))) {
      $0.profile.avatar.uploading = 0
      $0.profile.avatar.uploadedEdits = 1
      $0.profile.uploadsSeen = 1
      $0.uploadsSeen = 1
    }
    await store.send(.profile(.avatar(.uploadTapped))) {
      $0.profile.avatar.uploading = 1
      $0.profile.avatar.uploadID = Self.uuid(1)
    }
    await clock.advance(by: .milliseconds(5))
    await store.receive(.profile(.avatar(.uploaded(edits: 1)))) {
      $0.profile.avatar.uploading = 0
      $0.profile.uploadsSeen = 2
      $0.uploadsSeen = 2
    }
    await store.finish()
  }

  @Test func aKilledInnerWorkerIsRestartedByTheOuterAloneFromItsCopy() async throws {
    let events = Events()
    let output = EventLog<WorkerOutput>()
    let composition = try Composition(
      root: Account(), placement: Placement(parsing: Self.placement, file: "account.placement"),
      command: .executable(workerExecutable, app: "account"), onEvent: events.append, onOutput: output.append)
    let store = Store(initialState: Account.State()) { composition.compose(Account()) }
    for _ in 0..<3 { store.send(.profile(.avatar(.edited))) }
    let outer = try #require(composition.processes.first?.pids.first)
    let inner = try #require(innerWorkers(of: outer).first?.pid)
    kill(inner, SIGKILL)
    #expect(ProcessWatch.waitForExit(of: inner, milliseconds: 5_000))
    store.send(.profile(.avatar(.edited)))
    #expect(store.state.profile.avatar.edits == 4)
    // The outer worker restarted its child and reported it up as a typed event, with the
    // full path; the host tells it from the outer worker's own output.
    let restarted = await events.first {
      if case .nested("profile", .workerRestarted(boundary: "profile.avatar", _, reason: _)) = $0 { true } else { false }
    }
    #expect(restarted?.depth == 2)
    let successor = try #require(innerWorkers(of: outer).first?.pid)
    #expect(successor != inner)
    if case let .nested(_, .workerRestarted(_, pid, _))? = restarted { #expect(pid == successor) }
    #expect(!output.all.contains { $0.text.contains(ReportedEventLine.marker) })
    // The host's own worker went on untouched.
    #expect(composition.processes.first?.pids == [outer])
    #expect(!events.all.contains { if case .workerRestarted = $0 { true } else { false } })
    try expectNothingLeft(after: composition, workers: [outer, successor])
  }

  @Test func aStalledInnerWorkerIsGivenUpByTheOuterBeforeTheHostGivesUpTheOuter() async throws {
    let events = Events()
    let output = EventLog<WorkerOutput>()
    // The host's deadline for the outer worker is 500 ms; the outer's for the inner, 450 ms.
    let composition = try Composition(
      root: Account(),
      placement: Placement(parsing: "profile deadline 500ms\nprofile.avatar deadline 450ms\n", file: "account.placement"),
      command: .executable(workerExecutable, app: "account"), onEvent: events.append, onOutput: output.append)
    defer { composition.shutdown() }
    let store = Store(initialState: Account.State()) { composition.compose(Account()) }
    store.send(.profile(.avatar(.edited)))
    let outer = try #require(composition.processes.first?.pids.first)
    let inner = try #require(innerWorkers(of: outer).first?.pid)
    kill(inner, SIGSTOP)
    store.send(.profile(.avatar(.edited)))
    #expect(store.state.profile.avatar.edits == 2)
    // The host waited the outer's deadline and the inner's: the outer gave the inner up and
    // ran the action in its successor, and the host's worker went on.
    #expect(composition.processes.first?.pids == [outer])
    #expect(!events.all.contains { if case .workerRestarted = $0 { true } else { false } })
    #expect(
      await events.first {
        if case .nested("profile", .workerStalled(boundary: "profile.avatar", _, _)) = $0 { true } else { false }
      } != nil)
    #expect(
      await events.first {
        if case .nested("profile", .workerRestarted(boundary: "profile.avatar", _, _)) = $0 { true } else { false }
      } != nil)
    #expect(ProcessWatch.waitForExit(of: inner, milliseconds: 5_000))
  }

  @Test func theHostsRestartPolicyHoldsForTheInnerWorkers() async throws {
    let events = Events()
    let composition = try Composition(
      root: Account(), placement: Placement(parsing: Self.placement, file: "account.placement"),
      command: .executable(workerExecutable, app: "account"),
      restartPolicy: RestartPolicy(maximumRestarts: 0, within: .seconds(60)), onEvent: events.append)
    defer { composition.shutdown() }
    let store = Store(initialState: Account.State()) { composition.compose(Account()) }
    store.send(.profile(.avatar(.edited)))
    let outer = try #require(composition.processes.first?.pids.first)
    let inner = try #require(innerWorkers(of: outer).first?.pid)
    kill(inner, SIGKILL)
    #expect(ProcessWatch.waitForExit(of: inner, milliseconds: 5_000))
    store.send(.profile(.avatar(.edited)))
    // No restart allowed: the outer worker gave the inner boundary up, and said so.
    #expect(
      await events.first {
        if case .nested("profile", .boundaryFailed(boundary: "profile.avatar", _)) = $0 { true } else { false }
      } != nil)
    #expect(store.state.profile.avatar.edits == 1)
    #expect(innerWorkers(of: outer).isEmpty)
  }

  /// Three levels down, an event is carried up by each worker in turn: the host gets it
  /// typed, nested once per level, and names the worker's process after its depth in a trace.
  @Test func aWorkerThreeLevelsDownReportsItsEventsTypedThroughEveryParent() async throws {
    let events = Events()
    let composition = try Composition(
      root: Errands(), placement: Placement(parsing: try ErrandsPlacement.text(), file: "errands.placement"),
      command: .executable(workerExecutable, app: "errands"), onEvent: events.append)
    defer { composition.shutdown() }
    let started = await events.first {
      if case .nested("list", .nested("list.destination", .workerStarted(boundary: "list.destination.detail.checklist", _))) = $0 {
        true
      } else {
        false
      }
    }
    let event = try #require(started)
    #expect(event.depth == 3)
    #expect(event.boundary == "list.destination.detail.checklist")
    #expect("\(event)".hasSuffix("(reported by list's worker, depth 3)"))
  }

  @Test func anEventLineCarriesEveryEventAndLeavesOtherLinesAlone() {
    let events: [BoundaryEvent] = [
      .workerRestarted(boundary: "a.b", pid: 7, reason: .killedOnRequest),
      .nested(in: "a", event: .limitExceeded(boundary: "a.b", pid: 8, limit: .memory(bytes: 1 << 26))),
      .workerStalled(boundary: "a \"b\"\n", pid: 9, deadline: .milliseconds(450)),
    ]
    for event in events { #expect(ReportedEventLine.event(in: ReportedEventLine.line(for: event)) == event) }
    #expect(ReportedEventLine.event(in: "event: worker 7 serves a") == nil)
    #expect(ReportedEventLine.event(in: ReportedEventLine.marker + "{not json") == nil)
  }

  @Test func aKilledMiddleWorkerRestartsWithItsSubtreeAndNothingCommittedIsLost() async throws {
    let events = Events()
    let composition = try composition(app: "account", placement: Self.placement, events: events)
    let store = Store(initialState: Account.State()) { composition.compose(Account()) }
    for _ in 0..<3 { store.send(.profile(.avatar(.edited))) }
    store.send(.profile(.nameChanged("Blob")))
    let outer = try #require(composition.processes.first?.pids.first)
    let inner = try #require(innerWorkers(of: outer).first?.pid)
    kill(outer, SIGKILL)
    #expect(ProcessWatch.waitForExit(of: outer, milliseconds: 5_000))
    // The inner worker follows its parent (its parent-death signal).
    #expect(ProcessWatch.waitForExit(of: inner, milliseconds: 5_000))
    store.send(.profile(.avatar(.edited)))
    #expect(store.state.profile.avatar.edits == 4)
    #expect(store.state.profile.name == "Blob")
    let successor = try #require(composition.processes.first?.pids.first)
    #expect(successor != outer)
    let innerSuccessor = try #require(innerWorkers(of: successor).first?.pid)
    #expect(events.all.contains { if case .workerRestarted(boundary: "profile", _, _) = $0 { true } else { false } })
    try expectNothingLeft(after: composition, workers: [successor, innerSuccessor])
  }

  /// Ten thousand actions two levels down while another thread kills the middle worker, then
  /// the inner one, each time 250 more actions have gone, wherever the action in flight is:
  /// every action is applied once, as in one process.
  @Test func aMiddleWorkerKilledAgainAndAgainLosesAndDoublesNothing() async throws {
    let composition = try composition(
      app: "account", placement: Self.placement,
      restartPolicy: RestartPolicy(maximumRestarts: 1_000, within: .seconds(600)))
    defer { composition.shutdown() }
    let local = Store(initialState: Account.State()) { Account() }
    let remote = Store(initialState: Account.State()) { composition.compose(Account()) }
    let killer = Killer(composition)
    for step in 0..<10_000 {
      if step % 250 == 125 { killer.due.signal() }
      let action: Account.Action = step % 10 == 9 ? .profile(.nameChanged("name \(step)")) : .profile(.avatar(.edited))
      local.send(action)
      remote.send(action)
    }
    let kills = killer.stop()
    #expect(kills.middle >= 15 && kills.inner >= 15, "\(kills)")
    #expect(remote.state.profile.avatar.edits == 9_000)
    #expect(remote.state == local.state)
    // Every worker killed and its successors: gone after shutdown, with their directories.
    let last = composition.processes.first?.pids.first.map { [$0] + innerWorkers(of: $0).map(\.pid) } ?? []
    try expectNothingLeft(after: composition, workers: killer.seen + last)
  }

  /// A thread that kills, each time it is due, the middle worker and the inner one in turn.
  private final class Killer: Sendable {
    let due = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let isDone = Mutex(false)
    private let kills = Mutex((middle: 0, inner: 0))
    private let seenPIDs = Mutex<[Int32]>([])

    /// The workers it saw, killed or not.
    var seen: [Int32] { seenPIDs.withLock { $0 } }

    init(_ composition: Composition) {
      Thread { [self] in
        var round = 0
        while true {
          due.wait()
          if isDone.withLock({ $0 }) { break }
          round += 1
          guard let outer = composition.processes.first?.pids.first else { continue }
          let inner = innerWorkers(of: outer).first?.pid
          seenPIDs.withLock { $0 += [outer] + (inner.map { [$0] } ?? []) }
          if round % 2 == 1 {
            if kill(outer, SIGKILL) == 0 { kills.withLock { $0.middle += 1 } }
          } else if let inner, kill(inner, SIGKILL) == 0 {
            kills.withLock { $0.inner += 1 }
          }
        }
        finished.signal()
      }.start()
    }

    /// Stops the thread and returns how many of each it killed.
    func stop() -> (middle: Int, inner: Int) {
      isDone.withLock { $0 = true }
      due.signal()
      finished.wait()
      return kills.withLock { $0 }
    }
  }

  @Test func psShowsTheInnerWorkerIndentedUnderItsParentAndKillStopAndContReachIt() throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    #expect(try compose("up", "account", compose.placement(Self.placement)).status == 0)
    let ps = try compose("ps", "account")
    #expect(ps.status == 0, "\(ps)")
    let rows = ps.output.split(separator: "\n")
    let host = try #require(rows.first { $0.hasPrefix("(host) ") }?.split(separator: " "))
    let outer = try #require(rows.first { $0.hasPrefix("profile ") }?.split(separator: " "))
    let inner = try #require(rows.first { $0.hasPrefix("  profile.avatar ") }?.split(separator: " "), "\(ps.output)")
    // The last column is the parent's pid: the host's for the outer worker, the outer's for the inner.
    #expect(inner.last == outer[2])
    #expect(outer.last == host[2])
    // Numbered among its boundary's workers, so that kill, stop and cont can name it.
    #expect(inner[1] == "0")
    let pid = try #require(Int32(inner[2]))
    let stop = try compose("stop", "account", "profile.avatar", "0")
    #expect(stop.output.contains("sent SIGSTOP to worker 0 of profile.avatar (pid \(pid), depth 2)"), "\(stop)")
    #expect(try compose("cont", "account", "profile.avatar", "0").output.contains("sent SIGCONT"))
    let killed = try compose("kill", "account", "profile.avatar", "0")
    #expect(killed.output.contains("sent SIGKILL to worker 0 of profile.avatar (pid \(pid), depth 2): the worker that started it, pid \(outer[2]), starts its successor for the boundary's next action"), "\(killed)")
    #expect(ProcessWatch.waitForExit(of: pid, milliseconds: 5_000))
    let past = try compose("kill", "account", "profile.avatar", "3")
    #expect(past.status != 0 && past.error.contains("profile.avatar"), "\(past)")
    #expect(try compose("down", "account").status == 0)
  }

  /// Shuts `composition` down and checks that `workers` have exited and left no socket
  /// directory of their own.
  private func expectNothingLeft(after composition: Composition, workers: [Int32]) throws {
    composition.shutdown()
    for pid in workers { #expect(ProcessWatch.waitForExit(of: pid, milliseconds: 5_000), "worker \(pid) still runs") }
    let left = try FileManager.default.contentsOfDirectory(atPath: "/tmp").filter { name in
      workers.contains { name.hasPrefix("\(SocketDirectory.namePrefix)\($0)-") }
    }
    #expect(left.isEmpty, "socket directories left: \(left)")
  }
}

/// The workers that worker `pid` started for boundaries placed inside its own, with the
/// boundary each serves (from its command line: `--bulkhead-worker APP BOUNDARY`).
func innerWorkers(of pid: Int32) -> [(pid: Int32, boundary: String)] {
  let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
  return entries.compactMap(Int32.init).filter { parent(of: $0) == pid }.compactMap { child in
    guard let line = FileManager.default.contents(atPath: "/proc/\(child)/cmdline") else { return nil }
    let arguments = line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    guard let flag = arguments.firstIndex(of: WorkerCommand.Role.flag), arguments.count > flag + 2 else { return nil }
    return (child, arguments[flag + 2])
  }
}
