@testable import BulkheadDistribution
import Testing

/// Moving a boundary between its workers and the host, as events of the host's state
/// machine, row by row (the harness is `BoundaryMachineTests`'): no process, no socket.
extension BoundaryMachineTests {
  static let moveRows: [Row] = [
    Row(
      name: "a move to the host lets the worker go, drained at once when no action is with it",
      given: [.started(pid: 10, at: 0)], event: .move(.host), commands: [.drain(10)],
      after: After(places: [.empty], residence: .host, draining: [10])),
    Row(
      name: "in the host, an action does not enter: the host runs the child",
      given: [.started(pid: 10, at: 0), .move(.host)], event: .enter, commands: [.entered(false)],
      after: After(places: [.empty], residence: .host, draining: [10])),
    Row(
      name: "a move to the host while an action is with the worker waits for it to leave",
      given: [.started(pid: 10, at: 0), .enter], event: .move(.host), commands: [],
      after: After(places: [.empty], residence: .host)),
    Row(
      name: "the last action to leave hands the worker over to be drained",
      given: [.started(pid: 10, at: 0), .enter, .enter, .move(.host), .leave], event: .leave, commands: [.drain(10)],
      after: After(places: [.empty], residence: .host, draining: [10])),
    Row(
      name: "a drained worker whose effects have ended retires",
      given: [.started(pid: 10, at: 0), .move(.host)], event: .drained(pid: 10),
      commands: [.report(.workerRetired(boundary: "b", pid: 10)), .retire(10)],
      after: After(places: [.empty], residence: .host)),
    Row(
      name: "a move to workers starts a fresh worker at every place, while the old ones drain",
      workers: 2, given: [.started(pid: 10, at: 0), .started(pid: 20, at: 1), .move(.host)], event: .move(.worker),
      commands: [.launch(at: 0, after: .zero, restarting: nil), .launch(at: 1, after: .zero, restarting: nil)],
      after: After(places: [.starting, .starting], draining: [10, 20])),
    Row(
      name: "the worker a move started runs there, and is no restart",
      given: [.started(pid: 10, at: 0), .move(.host), .drained(pid: 10), .move(.worker)],
      event: .startedByMove(pid: 11, at: 0), commands: [], after: After(places: [.running(11)], restarts: [0])),
    Row(
      name: "back in workers, an action enters",
      given: [.started(pid: 10, at: 0), .move(.host), .move(.worker), .startedByMove(pid: 11, at: 0)], event: .enter,
      commands: [.entered(true)], after: After(places: [.running(11)], draining: [10])),
    Row(
      name: "a move to where the boundary is is refused, and changes nothing",
      given: [.started(pid: 10, at: 0)], event: .move(.worker),
      commands: [.refused(.alreadyThere(boundary: "b", residence: .worker))], after: After(places: [.running(10)])),
    Row(
      name: "a failed boundary does not move",
      policy: RestartPolicy(maximumRestarts: 0, within: .seconds(10)),
      given: [.started(pid: 10, at: 0), .gaveUp(pid: 10, at: 0, died)], event: .move(.host),
      commands: [.refused(.failed(boundary: "b", reason: BoundaryFailure(last: died, policy: RestartPolicy(maximumRestarts: 0, within: .seconds(10)))))],
      after: After(places: [.empty], isOpen: false, failures: 1, inARow: 0)),
    Row(
      name: "stopping closes the workers kept for their effects too",
      given: [.started(pid: 10, at: 0), .move(.host)], event: .stop, commands: [.close(10)],
      after: After(places: [.empty], isOpen: false, residence: .host)),
    Row(
      name: "the effects of a worker the stop closed ending retire nothing more",
      given: [.started(pid: 10, at: 0), .move(.host), .stop], event: .drained(pid: 10), commands: [],
      after: After(places: [.empty], isOpen: false, residence: .host)),
    Row(
      name: "a worker given up while it drains is not restarted: the boundary is in the host",
      given: [.started(pid: 10, at: 0), .move(.host)], event: .gaveUp(pid: 10, at: 0, died),
      commands: [.abandon(10, died)], after: After(places: [.empty], residence: .host, draining: [10])),
  ]

  @Test(arguments: moveRows) func moveRow(_ given: Row) {
    row(given)
  }

  /// What a worker answers after the boundary moved is not the host's record of it: its
  /// successor gets the whole state with its first action.
  @Test func aWorkerAMoveStartedGetsTheWholeStateFirst() {
    var harness = Harness()
    _ = harness.feed(.started(pid: 10, at: 0))
    _ = harness.feed(.ran(pid: 10, at: 0, slot: [], version: 4))
    _ = harness.feed(.move(.host))
    _ = harness.feed(.move(.worker))
    _ = harness.feed(.startedByMove(pid: 11, at: 0))
    #expect(Self.step(&harness, link: harness.link(11), changed: true) == .asked(base: Wire.emptyVersion, withPatch: true))
  }
}
