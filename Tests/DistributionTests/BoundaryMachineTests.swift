@testable import BulkheadDistribution
import Bulkhead
import Testing

/// The host's side of a boundary as a state machine, row by row: a state reached by some
/// events, one more event, the commands it returns and the state it leaves. No process, no
/// socket, no clock: links are stand-ins known by a pid, time is a value.
@Suite struct BoundaryMachineTests {
  /// A link as the machine sees it: a pid.
  final class Link: PoolLink {
    let pid: Int32
    init(_ pid: Int32) { self.pid = pid }
  }

  /// An event of the machine, with links named by pid and time in seconds from a start.
  enum Event: Sendable {
    /// The pool's first worker started.
    case started(pid: Int32, at: Int)
    /// The start at `at` produced a worker.
    case restarted(pid: Int32, at: Int)
    /// The running worker `pid` at `at` was given up at `second`.
    case gaveUp(pid: Int32, at: Int, RestartReason, second: Int = 0)
    /// The start at `at` failed.
    case startFailed(at: Int)
    case removed(slot: [UInt8], at: Int)
    /// The children whose slots begin with `prefix` left, in whichever workers.
    case removedUnder(prefix: [UInt8])
    /// Worker `pid` at `at` ran an action on `slot`, to `version`.
    case ran(pid: Int32, at: Int, slot: [UInt8], version: UInt64)
    case stop
    /// An action reaches the boundary (`enter`), or leaves it.
    case enter
    case leave
    /// The boundary moves to the host or to its workers (MoveMachineTests).
    case move(Residence)
    /// The start a move to workers made at `at` produced a worker.
    case startedByMove(pid: Int32, at: Int)
    /// Every effect of worker `pid`, drained, has ended.
    case drained(pid: Int32)
  }

  /// A command as a row says it: links by pid, a start by its place.
  enum Did: Equatable {
    case close(Int32)
    case abandon(Int32, RestartReason)
    case retire(Int32)
    case letGo(Int32)
    case launch(at: Int, after: Duration, restarting: RestartReason?)
    case drop(slot: [UInt8], from: Int32)
    case report(BoundaryEvent)
    case drain(Int32)
    /// The action entered (true), or runs in the host (false).
    case entered(Bool)
    case refused(MoveRefusal)
  }

  /// A place as a row says it.
  enum Place: Equatable {
    case empty
    case starting
    case running(Int32)
    case vacant
  }

  /// What a row checks of the state after.
  struct After: Equatable {
    var places: [Place]
    var isOpen = true
    var failures = 0
    var inARow = 0
    var restarts: [Int]? = nil
    var residence = Residence.worker
    /// The workers a move let go that are kept for their effects.
    var draining: [Int32] = []
  }

  /// A machine with `workers` places, the links it has seen by pid, and the start at each
  /// place (a start is known by identity, which rows cannot name).
  struct Harness {
    var machine: BoundaryMachine<Link>
    var links: [Int32: Link] = [:]
    let origin = ContinuousClock.now

    init(workers: Int = 1, retires: Bool = false, policy: RestartPolicy = .standard) {
      machine = BoundaryMachine(path: "b", workers: workers, retiresWorkers: retires, policy: policy)
    }

    mutating func link(_ pid: Int32) -> Link {
      if let link = links[pid] { return link }
      let link = Link(pid)
      links[pid] = link
      return link
    }

    private func start(at index: Int) -> WorkerStart {
      guard case let .starting(start) = machine.members[index] else {
        Issue.record("place \(index) is not starting")
        return WorkerStart()
      }
      return start
    }

    /// Feeds `event`, and returns what the machine said to do.
    mutating func feed(_ event: Event) -> [Did] {
      let commands: [BoundaryMachine<Link>.Command]
      switch event {
      case let .started(pid, index):
        commands = machine.started(link(pid), at: index)
      case let .restarted(pid, index):
        commands = machine.started(link(pid), at: index, for: start(at: index), restarting: .killedOnRequest)
      case let .gaveUp(pid, index, reason, second):
        commands = machine.gaveUp(.running(link(pid)), at: index, for: reason, now: origin + .seconds(second)).commands
      case let .startFailed(index):
        commands = machine.gaveUp(.starting(start(at: index)), at: index, for: .startFailed("no"), now: origin).commands
      case let .removed(slot, index):
        commands = machine.removed(slot: slot, at: index)
      case let .removedUnder(prefix):
        commands = machine.removed(under: prefix)
      case let .ran(pid, index, slot, version):
        machine.ran(slot: slot, at: index, link: link(pid), lineage: 1, version: version, state: 0)
        commands = []
      case .stop:
        commands = machine.stop()
      case .enter:
        return [.entered(machine.enter())]
      case .leave:
        commands = machine.leave()
      case let .move(residence):
        do {
          commands = try residence == .host ? machine.moveToHost() : machine.moveToWorkers()
        } catch {
          return [.refused(error)]
        }
      case let .startedByMove(pid, index):
        commands = machine.started(link(pid), at: index, for: start(at: index), restarting: nil)
      case let .drained(pid):
        commands = machine.drained(link(pid))
      }
      return commands.map(Self.did)
    }

    static func did(_ command: BoundaryMachine<Link>.Command) -> Did {
      switch command {
      case let .close(link): .close(link.pid)
      case let .abandon(link, reason): .abandon(link.pid, reason)
      case let .retire(link): .retire(link.pid)
      case let .letGo(link, _): .letGo(link.pid)
      case let .launch(index, _, delay, reason): .launch(at: index, after: delay, restarting: reason)
      case let .drop(slot, link): .drop(slot: slot, from: link.pid)
      case let .report(event): .report(event)
      case let .drain(link): .drain(link.pid)
      }
    }

    var after: After {
      After(
        places: machine.members.map {
          switch $0 {
          case .empty: .empty
          case .starting: .starting
          case let .running(link): .running(link.pid)
          case .vacant: .vacant
          }
        },
        isOpen: machine.isOpen, failures: machine.statistics.failures, inARow: machine.consecutiveFailures,
        restarts: machine.restartCounts, residence: machine.residence, draining: machine.draining.map(\.pid))
    }
  }

  struct Row: Sendable, CustomTestStringConvertible {
    let name: String
    var workers = 1
    var retires = false
    var policy = RestartPolicy.standard
    let given: [Event]
    let event: Event
    let commands: [Did]
    let after: After

    var testDescription: String { name }
  }

  static let died = RestartReason.connectionEnded(.control)
  static let oneRestart = RestartPolicy(maximumRestarts: 1, within: .seconds(10))

  static let rows: [Row] = [
    Row(
      name: "a worker given up is abandoned and its successor starts at once",
      given: [.started(pid: 10, at: 0)], event: .gaveUp(pid: 10, at: 0, died),
      commands: [.abandon(10, died), .launch(at: 0, after: .zero, restarting: died)],
      after: After(places: [.starting], failures: 1, inARow: 1, restarts: [0])),
    Row(
      name: "a second fault of the same worker is one restart: abandoned again, nothing started",
      given: [.started(pid: 10, at: 0), .gaveUp(pid: 10, at: 0, died)],
      event: .gaveUp(pid: 10, at: 0, .stalled(deadline: .seconds(1))),
      commands: [.abandon(10, .stalled(deadline: .seconds(1)))],
      after: After(places: [.starting], failures: 1, inARow: 1)),
    Row(
      name: "the successor started: it runs there, and its restart is reported with the reason",
      given: [.started(pid: 10, at: 0), .gaveUp(pid: 10, at: 0, died)], event: .restarted(pid: 11, at: 0),
      commands: [.report(.workerRestarted(boundary: "b", pid: 11, reason: .killedOnRequest))],
      after: After(places: [.running(11)], failures: 1, inARow: 1, restarts: [1])),
    Row(
      name: "a second failure in a row backs off 25 ms before the restart",
      given: [.started(pid: 10, at: 0), .gaveUp(pid: 10, at: 0, died), .restarted(pid: 11, at: 0)],
      event: .gaveUp(pid: 11, at: 0, died, second: 1),
      commands: [.abandon(11, died), .launch(at: 0, after: .milliseconds(25), restarting: died)],
      after: After(places: [.starting], failures: 2, inARow: 2)),
    Row(
      name: "a start that failed is given up like a worker, and the next backs off",
      given: [.started(pid: 10, at: 0), .gaveUp(pid: 10, at: 0, died)], event: .startFailed(at: 0),
      commands: [.launch(at: 0, after: .milliseconds(25), restarting: .startFailed("no"))],
      after: After(places: [.starting], failures: 2, inARow: 2)),
    Row(
      name: "an answer after failures ends the run of failures: the next restart is at once",
      given: [
        .started(pid: 10, at: 0), .gaveUp(pid: 10, at: 0, died), .restarted(pid: 11, at: 0),
        .ran(pid: 11, at: 0, slot: [], version: 1),
      ],
      event: .gaveUp(pid: 11, at: 0, died, second: 1),
      commands: [.abandon(11, died), .launch(at: 0, after: .zero, restarting: died)],
      after: After(places: [.starting], failures: 2, inARow: 1)),
    Row(
      name: "one restart too many fails the boundary and lets the rest of the pool go",
      workers: 2, policy: oneRestart,
      given: [
        .started(pid: 10, at: 0), .started(pid: 20, at: 1), .gaveUp(pid: 10, at: 0, died),
        .restarted(pid: 11, at: 0),
      ],
      event: .gaveUp(pid: 11, at: 0, died, second: 2),
      commands: [
        .abandon(11, died), .letGo(20),
        .report(.boundaryFailed(boundary: "b", reason: BoundaryFailure(last: died, policy: oneRestart))),
      ],
      after: After(places: [.empty, .empty], isOpen: false, failures: 2, inARow: 1, restarts: [1, 0])),
    Row(
      name: "restarts older than the policy's period do not count",
      policy: oneRestart,
      given: [.started(pid: 10, at: 0), .gaveUp(pid: 10, at: 0, died), .restarted(pid: 11, at: 0)],
      event: .gaveUp(pid: 11, at: 0, died, second: 11),
      commands: [.abandon(11, died), .launch(at: 0, after: .milliseconds(25), restarting: died)],
      after: After(places: [.starting], failures: 2, inARow: 2)),
    Row(
      name: "a fault found after the boundary failed only kills the worker",
      policy: RestartPolicy(maximumRestarts: 0, within: .seconds(10)),
      given: [.started(pid: 10, at: 0), .gaveUp(pid: 10, at: 0, died)],
      event: .gaveUp(pid: 10, at: 0, .killedOnRequest),
      commands: [.abandon(10, .killedOnRequest)],
      after: After(places: [.empty], isOpen: false, failures: 1, inARow: 0)),
    Row(
      name: "a stall counts as a failure and a stall",
      given: [.started(pid: 10, at: 0)], event: .gaveUp(pid: 10, at: 0, .stalled(deadline: .seconds(2))),
      commands: [
        .abandon(10, .stalled(deadline: .seconds(2))),
        .launch(at: 0, after: .zero, restarting: .stalled(deadline: .seconds(2))),
      ],
      after: After(places: [.starting], failures: 1, inARow: 1)),
    Row(
      name: "a child removed from a retiring boundary retires its worker and starts a fresh one",
      retires: true,
      given: [.started(pid: 10, at: 0), .ran(pid: 10, at: 0, slot: [], version: 1)],
      event: .removed(slot: [], at: 0),
      commands: [
        .report(.workerRetired(boundary: "b", pid: 10)), .retire(10),
        .launch(at: 0, after: .zero, restarting: nil),
      ],
      after: After(places: [.starting], restarts: [0])),
    Row(
      name: "a child removed from a pool is forgotten by its worker, which stays",
      workers: 2,
      given: [.started(pid: 10, at: 0), .started(pid: 20, at: 1), .ran(pid: 20, at: 1, slot: [7], version: 3)],
      event: .removed(slot: [7], at: 1),
      commands: [.drop(slot: [7], from: 20)],
      after: After(places: [.running(10), .running(20)])),
    Row(
      name: "the children inside a removed element are forgotten by every worker that holds one, and no others",
      workers: 2,
      given: [
        .started(pid: 10, at: 0), .started(pid: 20, at: 1), .ran(pid: 10, at: 0, slot: [1, 5, 1, 7], version: 1),
        .ran(pid: 20, at: 1, slot: [1, 5, 1, 8], version: 2), .ran(pid: 10, at: 0, slot: [1, 6], version: 3),
      ],
      event: .removedUnder(prefix: [1, 5]),
      commands: [.drop(slot: [1, 5, 1, 7], from: 10), .drop(slot: [1, 5, 1, 8], from: 20)],
      after: After(places: [.running(10), .running(20)])),
    Row(
      name: "a removal with no elements reaches the boundary's only child",
      given: [.started(pid: 10, at: 0), .ran(pid: 10, at: 0, slot: [], version: 1)],
      event: .removedUnder(prefix: []), commands: [.drop(slot: [], from: 10)],
      after: After(places: [.running(10)])),
    Row(
      name: "a child the worker never saw is not asked to be forgotten",
      given: [.started(pid: 10, at: 0)], event: .removed(slot: [7], at: 0), commands: [],
      after: After(places: [.running(10)])),
    Row(
      name: "stopping closes every worker, and takes no more",
      workers: 2, given: [.started(pid: 10, at: 0), .started(pid: 20, at: 1)], event: .stop,
      commands: [.close(10), .close(20)], after: After(places: [.empty, .empty], isOpen: false)),
    Row(
      name: "a worker started after the stop is closed",
      given: [.stop], event: .started(pid: 10, at: 0), commands: [.close(10)],
      after: After(places: [.empty], isOpen: false)),
  ]

  @Test(arguments: rows) func row(_ row: Row) {
    var harness = Harness(workers: row.workers, retires: row.retires, policy: row.policy)
    for event in row.given { _ = harness.feed(event) }
    #expect(harness.feed(row.event) == row.commands)
    var expected = row.after
    if expected.restarts == nil { expected.restarts = harness.after.restarts }
    #expect(harness.after == expected)
  }

  /// A worker at one place, which ran an action on the slot to `version`, with an outcome it
  /// computed ahead for effect action `sequence`.
  static func offering(version: UInt64 = 1, base: UInt64 = 1, sequence: UInt64 = 5) -> (Harness, Link) {
    var harness = Harness()
    let link = harness.link(10)
    _ = harness.feed(.started(pid: 10, at: 0))
    _ = harness.feed(.ran(pid: 10, at: 0, slot: [], version: version))
    harness.machine.offered(
      slot: [], at: 0, link: link, sequence: sequence, action: [1],
      outcome: Wire.Outcome(baseVersion: base, version: base + 1, patch: nil, effect: .none))
    return (harness, link)
  }

  /// How the machine answers a step: the outcome's version if it took one, or the request's
  /// base version.
  enum Answer: Equatable {
    case took(version: UInt64)
    case asked(base: UInt64, withPatch: Bool)
  }

  static func step(
    _ harness: inout Harness, link: Link, lineage: UInt64 = 1, action: [UInt8] = [1], changed: Bool = false,
    dependencies: Wire.DependencyHeader? = nil
  ) -> Answer {
    let step = harness.machine.step(
      slot: [], at: 0, link: link, lineage: lineage, action: action, dependencies: dependencies
    ) { _ in
      changed ? .whole([0]) : nil
    }
    switch step {
    case let .take(outcome): return .took(version: outcome.version)
    case let .ask(.run(_, base, patch, _, _, _), _): return .asked(base: base, withPatch: patch != nil)
    case .ask: return .asked(base: .max, withPatch: false)
    }
  }

  @Test func theSlotOfAChildInsideAnElementBeginsWithTheElementsSlotAndNoOtherElementsDoes() throws {
    let screen = try RemoteBoundary.slot(of: [StackElementID(generation: 3)])
    let inside = try RemoteBoundary.slot(of: [StackElementID(generation: 3), 7])
    let other = try RemoteBoundary.slot(of: [StackElementID(generation: 31)])
    #expect(inside.starts(with: screen))
    #expect(!other.starts(with: screen))
    #expect(!screen.starts(with: other))
    #expect(try RemoteBoundary.slot(of: []) == [])
  }

  @Test func anOfferOnTheHostsCopyIsTakenAndTheWorkerHearsSoOnce() {
    var (harness, link) = Self.offering()
    #expect(Self.step(&harness, link: link) == .took(version: 2))
    let took = harness.machine.processed(slot: [], at: 0, link: link, sequence: 5)
    #expect(took)
    // The acknowledgement that crosses a second time (a stale duplicate) took nothing.
    let tookAgain = harness.machine.processed(slot: [], at: 0, link: link, sequence: 5)
    #expect(!tookAgain)
  }

  @Test func anOfferIsRefusedWhenTheHostChangedTheStateOrItsDependencies() {
    var (harness, link) = Self.offering()
    #expect(Self.step(&harness, link: link, changed: true) == .asked(base: 1, withPatch: true))
    let took = harness.machine.processed(slot: [], at: 0, link: link, sequence: 5)
    #expect(!took)
    (harness, link) = Self.offering()
    let header = Wire.DependencyHeader(revision: 1, context: .live, answeredByHost: [], stayingOnHost: [])
    #expect(Self.step(&harness, link: link, dependencies: header) == .asked(base: 1, withPatch: false))
  }

  @Test func anOfferFromAnotherBaseOrForAnotherActionIsRefused() {
    var (harness, link) = Self.offering(version: 3, base: 1)
    #expect(Self.step(&harness, link: link) == .asked(base: 3, withPatch: false))
    (harness, link) = Self.offering()
    #expect(Self.step(&harness, link: link, action: [2]) == .asked(base: 1, withPatch: false))
  }

  /// Acknowledgements crossing: the host processed the action (without running it through
  /// the boundary) before its reducer ran another; the offer is gone, the next step asks.
  @Test func anOfferProcessedBeforeAStepIsNotTaken() {
    var (harness, link) = Self.offering()
    let took = harness.machine.processed(slot: [], at: 0, link: link, sequence: 5)
    #expect(!took)
    #expect(Self.step(&harness, link: link) == .asked(base: 1, withPatch: false))
  }

  /// A second store on the boundary: what the worker has is a copy of the first store's
  /// state, however equal the two look, so the offer is not taken and the request, on the
  /// empty version, carries the whole state (the patch from no copy).
  @Test func aCopyOfAnotherLineagesStateIsNotCurrent() {
    var (harness, link) = Self.offering()
    var copies: [Int?] = []
    let step = harness.machine.step(slot: [], at: 0, link: link, lineage: 2, action: [1], dependencies: nil) { copy in
      copies.append(copy as? Int)
      return .whole([0])
    }
    #expect(copies == [nil])
    guard case let .ask(.run(_, base, _, _, _, _), _) = step else { return #expect(Bool(false), "\(step)") }
    #expect(base == Wire.emptyVersion)
    // The first store's record stands: its next step asks on its version (the offer is spent).
    #expect(Self.step(&harness, link: link) == .asked(base: 1, withPatch: false))
  }

  /// A stale answer: the host forgets its copy, and the next request carries the whole state
  /// on the empty version; a stale answer to that breaks the protocol, since a whole state
  /// replaces whatever the worker had.
  @Test func aStaleAnswerMakesTheNextRequestCarryTheWholeStateAndASecondIsAViolation() {
    var (harness, link) = Self.offering()
    #expect(harness.machine.stale(slot: [], at: 0, link: link, base: 1) == nil)
    #expect(Self.step(&harness, link: link, changed: true) == .asked(base: Wire.emptyVersion, withPatch: true))
    #expect(harness.machine.stale(slot: [], at: 0, link: link, base: Wire.emptyVersion) == .staleToWholeState)
  }

  /// An offer of a worker given up is forgotten with it: its successor cannot be handed it.
  @Test func aWorkerGivenUpTakesItsOffersWithIt() {
    var (harness, link) = Self.offering()
    _ = harness.feed(.gaveUp(pid: 10, at: 0, Self.died))
    _ = harness.feed(.restarted(pid: 11, at: 0))
    let successor = harness.link(11)
    #expect(Self.step(&harness, link: successor) == .asked(base: Wire.emptyVersion, withPatch: false))
    let took = harness.machine.processed(slot: [], at: 0, link: link, sequence: 5)
    #expect(!took)
  }

  @Test(arguments: [(1, Duration.zero), (2, .milliseconds(25)), (3, .milliseconds(50)), (8, .seconds(1)), (30, .seconds(1))])
  func backOffDoublesUpToASecond(failures: Int, backoff: Duration) {
    #expect(BoundaryMachine<Link>.backoff(after: failures) == backoff)
  }
}
