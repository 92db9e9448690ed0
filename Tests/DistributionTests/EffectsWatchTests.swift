import Bulkhead
@testable import BulkheadDistribution
import Dispatch
import Examples
import Foundation
import Synchronization
import Testing
import Transport

/// One thread of the host reads every worker's effects connection (`ConnectionWatch.effects`):
/// what may wait (a write to a worker that stopped reading, the wait for a dying worker's
/// memory verdict) runs elsewhere, so that one stalled or dying worker never holds up the
/// others' effects.
// Five minutes: in a full parallel run every @MainActor test of the process shares the main
// actor, where the stopped worker's sibling's ticks are reduced (more than 60 s was seen there
// for three ticks, 3 s alone).
@MainActor
@Suite(.timeLimit(.minutes(5))) struct EffectsWatchTests {
  @Test func aStoppedWorkerHoldsUpNoOtherWorkersEffectActions() async throws {
    let arrivals = EffectArrivals()
    let composition = try Composition(
      root: Timers(), placement: Placement(parsing: "timers pool 2 deadline 30s\n", file: "timers.placement"),
      command: .executable(workerExecutable, app: "timers"), instrument: arrivals)
    defer { composition.shutdown() }
    let store = Store(initialState: Timers.State()) { composition.compose(Timers()) }
    store.send(.addTimerTapped)
    store.send(.addTimerTapped)
    let workers = try #require(composition.processes.first?.pids)
    try #require(workers.count == 2)
    // Timer 1 is served by the second worker of the pool (timers are spread by id), and
    // streams a tick a second. The first, which serves timer 2, is stopped with its effects
    // connection open: none of its effect actions may be in flight, as one would hold the
    // host's store in a request to it until its deadline.
    kill(workers[0], SIGSTOP)
    defer { kill(workers[0], SIGCONT) }
    store.send(.timers(.element(id: 1, action: .startTapped)))

    var arrived = arrivals.stream.makeAsyncIterator()
    while (store.state.timers[id: 1]?.ticks ?? 0) < 3 {
      await arrived.next()
    }
    #expect(store.state.timers[id: 2]?.ticks == 0)
  }

  @Test func aFaultThatWaitsForItsWorkerHoldsUpNoOtherWorkersEffects() async throws {
    let release = DispatchSemaphore(value: 0)
    let (faulted, faulting) = AsyncStream<Void>.makeStream()
    let (closed, closing) = AsyncStream<Void>.makeStream()
    let (dying, dyingPeer) = try UnixSocket.pair()
    let (other, otherPeer) = try UnixSocket.pair()
    // As the host waits for the verdict on a worker that ended at its memory limit.
    let first = try HostEffects(
      FramedConnection(dying), boundary: "dying", onClose: {},
      onFault: { _ in
        faulting.yield()
        release.wait()
      }, onLost: { _ in })
    let second = try HostEffects(
      FramedConnection(other), boundary: "other", onClose: { closing.yield() }, onFault: { _ in }, onLost: { _ in })
    defer { release.signal() }

    dyingPeer.close()
    var faults = faulted.makeAsyncIterator()
    await faults.next()
    otherPeer.close()
    // Heard while the first worker's fault still waits.
    var closes = closed.makeAsyncIterator()
    #expect(await closes.next() != nil)
    withExtendedLifetime((first, second)) {}
  }

  @Test func aWriteThatWaitsHoldsUpNeitherItsSenderNorTheOrderOfWhatFollows() async {
    let release = DispatchSemaphore(value: 0)
    let written = Mutex<[Int]>([])
    let (done, finishing) = AsyncStream<Void>.makeStream()
    let outbox = WatchOutbox<Int> { batch in
      // The first queued write waits, as one to a worker that stopped reading.
      if batch.first == 1 { release.wait() }
      if written.withLock({ written in
        written += batch
        return written.count
      }) == 5 { finishing.yield() }
    }
    outbox.send([0]) { true }
    #expect(written.withLock { $0 } == [0], "written at once while there is room")
    outbox.send([1]) { false }
    outbox.send([2, 3]) { true }
    outbox.send([4]) { true }
    #expect(written.withLock { $0 } == [0], "queued behind the write that waits, though there is room")
    release.signal()
    var finished = done.makeAsyncIterator()
    await finished.next()
    #expect(written.withLock { $0 } == [0, 1, 2, 3, 4])
  }
}

/// Says each time the host has processed a worker's effect action.
private final class EffectArrivals: BoundaryInstrument {
  let stream: AsyncStream<Void>
  private let continuation: AsyncStream<Void>.Continuation

  init() { (stream, continuation) = AsyncStream<Void>.makeStream() }

  func effectActionProcessed(_ action: EffectActionTrip) { continuation.yield() }
}
