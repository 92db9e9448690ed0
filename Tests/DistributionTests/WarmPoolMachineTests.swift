import Testing

@testable import BulkheadDistribution

/// The warm pool's bookkeeping without processes: what it starts, hands out, lets go.
@Suite struct WarmPoolMachineTests {
  final class Worker {}

  @Test func opensByStartingEveryPlaceAndSettlesWhenAllStarted() {
    var pool = WarmPoolMachine<Worker>(size: 2)
    #expect(pool.open() == [.start, .start])
    #expect(!pool.isSettled)
    _ = pool.started(Worker())
    _ = pool.started(Worker())
    #expect(pool.isSettled)
    #expect(pool.idle.count == 2)
  }

  @Test func takingTheOldestStartsItsReplacementOnlyWhenReplenished() {
    var pool = WarmPoolMachine<Worker>(size: 2)
    _ = pool.open()
    let first = Worker()
    _ = pool.started(first)
    _ = pool.started(Worker())
    #expect(pool.take() === first)
    // Nothing starts until the worker taken has answered: the fork would compete with it.
    #expect(pool.starting == 0 && pool.owed == 1 && !pool.isSettled)
    // Another event that refills does not start the owed replacement early.
    #expect(pool.exited(Worker()).isEmpty)
    #expect(pool.replenish() == [.start])
    #expect(pool.starting == 1 && pool.owed == 0)
  }

  @Test func anEmptyPoolHandsOutNothingAndOwesNothing() {
    var pool = WarmPoolMachine<Worker>(size: 1)
    _ = pool.open()
    #expect(pool.take() == nil)
    #expect(pool.owed == 0)
  }

  @Test func anIdleWorkerThatExitsIsLetGoAndReplaced() {
    var pool = WarmPoolMachine<Worker>(size: 1)
    _ = pool.open()
    let worker = Worker()
    _ = pool.started(worker)
    #expect(pool.exited(worker) == [.close(worker), .start])
    #expect(pool.idle.isEmpty)
    // A taken worker's exit is its boundary's business.
    #expect(pool.exited(Worker()).isEmpty)
  }

  @Test func givesUpAfterFailuresInARowAndASuccessResetsTheCount() {
    var pool = WarmPoolMachine<Worker>(size: 1)
    _ = pool.open()
    #expect(pool.failedToStart("a") == [.start])
    _ = pool.started(Worker())
    #expect(pool.failuresInARow == 0)
    _ = pool.take()
    #expect(pool.replenish() == [.start])
    #expect(pool.failedToStart("b") == [.start])
    #expect(pool.failedToStart("c") == [.start])
    #expect(pool.failedToStart("d") == [.giveUp(reason: "d")])
    #expect(pool.hasGivenUp && pool.isSettled)
    #expect(pool.take() == nil)
  }

  @Test func closingLetsIdleWorkersGoAndClosesLateStarts() {
    var pool = WarmPoolMachine<Worker>(size: 2)
    _ = pool.open()
    let idle = Worker()
    _ = pool.started(idle)
    #expect(pool.close() == [.close(idle)])
    let late = Worker()
    #expect(pool.started(late) == [.close(late)])
    #expect(pool.take() == nil)
  }
}

/// A boundary that draws from the warm pool: vacant until claimed, vacant again on retirement.
@Suite struct WarmBoundaryMachineTests {
  final class Link: PoolLink {
    let pid: Int32
    init(_ pid: Int32) { self.pid = pid }
  }

  @Test func aRetiredWorkersPlaceStaysVacantUntilTheNextActionClaimsOne() {
    var machine = BoundaryMachine<Link>(
      path: "detail", workers: 1, retiresWorkers: true, drawsFromWarmPool: true, policy: .standard)
    guard case .vacant = machine.members[0] else { Issue.record("not vacant at start"); return }
    let start = machine.claim(at: 0)
    #expect(start != nil)
    #expect(machine.claim(at: 0) == nil)
    let link = Link(7)
    #expect(machine.started(link, at: 0, for: start!, restarting: nil).isEmpty)
    machine.ran(slot: [], at: 0, link: link, lineage: 1, version: 1, state: 0)
    let commands = machine.removed(under: [])
    #expect(commands.count == 2)
    guard case .vacant = machine.members[0] else { Issue.record("not vacant after retirement"); return }
    #expect(machine.statistics.workersRetired == 1)
  }
}

/// Moves of a boundary that draws from the warm pool: to the host, its place is empty as any
/// boundary's; back to workers, vacant, with no start: the next action claims a warm worker.
@Suite struct WarmBoundaryMoveTests {
  final class Link: PoolLink {
    let pid: Int32
    init(_ pid: Int32) { self.pid = pid }
  }

  @Test func aMoveBackToWorkersLeavesThePlaceVacantAndStartsNothing() throws {
    var machine = BoundaryMachine<Link>(
      path: "detail", workers: 1, retiresWorkers: true, drawsFromWarmPool: true, policy: .standard)
    let claimed = machine.claim(at: 0)
    let start = try #require(claimed)
    let link = Link(7)
    _ = machine.started(link, at: 0, for: start, restarting: nil)
    let toHost = try machine.moveToHost()
    #expect(toHost.count == 1)
    guard case .empty = machine.members[0] else { Issue.record("not empty in the host"); return }
    #expect(try machine.moveToWorkers().isEmpty)
    #expect(machine.members[0].isVacant)
    #expect(machine.claim(at: 0) != nil)
  }

  @Test func aBoundaryWithAWorkerOfItsOwnStartsOneOnTheMoveBack() throws {
    var machine = BoundaryMachine<Link>(path: "detail", workers: 1, retiresWorkers: true, policy: .standard)
    _ = machine.started(Link(7), at: 0)
    _ = try machine.moveToHost()
    let commands = try machine.moveToWorkers()
    guard case .launch? = commands.first else { Issue.record("no launch: \(commands)"); return }
    #expect(machine.claim(at: 0) == nil)
  }
}
