@testable import Bulkhead
@testable import BulkheadDistribution
import Synchronization
import Testing
import Transport

/// Effect messages damaged into other values that still decode — as a relay that recomputes
/// frame checksums lets through — played between a host's effects and a real worker's, both
/// in this process: every effect the host started must end, or be reported lost.
@MainActor
@Suite struct DamagedEffectMessageTests {
  /// Issue 22, item 11: under live frame mutation, one effect was neither finished nor
  /// reported lost after its worker's restart. A reply whose effect names a body the worker
  /// is running already (here run 3's number damaged into 1) gave the host a second proxy
  /// for run 1, which took the first one's place in the host's table. The worker, asked to
  /// start run 1 again, gave up its effects connection; the host ended the proxies in its
  /// table as lost (and restarted the worker), and the first proxy for run 1 waited for ever.
  @Test func aReplyNamingARunningBodyEndsEveryEffectAsLost() async throws {
    let pair = try EffectsPair()
    let store = pair.store()
    let running = [store.send(.run(pair.keep())), store.send(.run(pair.keep()))]
    await pair.bodiesStarted(2)
    // The worker keeps body 3, and its reply arrives naming run 1.
    _ = pair.keep()
    let damaged = store.send(.run(1))
    for task in running + [damaged] {
      #expect(await finish(task, within: .seconds(5)), "an effect neither finished nor was reported lost")
    }
    #expect(pair.lost == 3)
    #expect(pair.faults.contains(.brokeProtocol(.runNamedTwice(run: 1))), "\(pair.faults)")
    pair.end()
  }

  /// An end of a body whose run number was damaged into another running body's ends that
  /// body's proxy early; when that body really ends, its end names a run with no proxy. The
  /// host must take that as made up and give the worker up, or the proxy whose end was
  /// damaged waits for ever on a worker that still answers.
  @Test func anEndNamingARunWithoutAProxyEndsTheWorker() async throws {
    let pair = try EffectsPair()
    let store = pair.store()
    let first = store.send(.run(pair.keep()))
    let second = store.send(.run(pair.keep()))
    await pair.bodiesStarted(2)
    // Run 2's end, damaged into run 1's (body 2 goes on in the worker).
    pair.host.receive(.finished(run: 1, lastAction: 0))
    #expect(await finish(first, within: .seconds(5)))
    // Body 1 really ends, and the worker says so.
    pair.open(gate: 1)
    #expect(await finish(second, within: .seconds(5)), "an effect neither finished nor was reported lost")
    #expect(pair.lost == 1)
    #expect(
      pair.faults.contains {
        guard case let .brokeProtocol(.unprompted(message)) = $0 else { return false }
        return message.hasPrefix("finished(run: 1,")
      }, "\(pair.faults)")
    pair.end()
  }
}

/// A host's effects and a real worker's over a socket pair, and a store whose every action is
/// a worker's reply to run: it returns the effect that reply describes. The worker keeps
/// bodies that run until the test opens their gates, or until cancelled.
@MainActor
private final class EffectsPair {
  let host: HostEffects
  private let worker: WorkerEffects
  private let reports = Reports()
  private var gates: [UInt64: AsyncStream<Void>.Continuation] = [:]
  private let started: AsyncStream<Void>
  private let starting: AsyncStream<Void>.Continuation

  init() throws {
    let (hostSide, workerSide) = try UnixSocket.pair()
    worker = try WorkerEffects(FramedConnection(workerSide))
    let reports = reports
    host = try HostEffects(
      FramedConnection(hostSide), boundary: "damaged", onClose: {},
      onFault: { reason in reports.state.withLock { $0.faults.append(reason) } },
      onLost: { count in reports.state.withLock { $0.lost += count } })
    (started, starting) = AsyncStream<Void>.makeStream()
  }

  /// Effects reported lost so far.
  var lost: Int { reports.state.withLock { $0.lost } }
  /// Why the worker was given up, each time it was.
  var faults: [RestartReason] { reports.state.withLock { $0.faults } }

  func store() -> Store<Int, PortableEffect> {
    let outcomes = HostEffects.Outcomes(offer: { _, _, _ in }, settle: { _ in false }, processed: { _, _, _, _, _ in })
    return Store(initialState: 0) {
      Reduce { [host] _, reply in
        (try? Effect(reply, decode: { _ in reply }) { run in
          host.proxy(run: run, decode: { _ in reply }, outcomes: outcomes)
        }) ?? .none
      }
    }
  }

  /// Keeps a body in the worker, as a reducer there would, and returns its run number.
  func keep() -> UInt64 {
    let (gate, opening) = AsyncStream<Void>.makeStream()
    let starting = starting
    let run = worker.keep(
      { (_: Send<PortableEffect>) in
        starting.yield()
        for await _ in gate {}
      }, encode: { _ in [] }, slot: [])
    gates[run] = opening
    return run
  }

  /// Waits until `count` bodies have started in the worker: their proxies are in the host's table.
  func bodiesStarted(_ count: Int) async {
    var iterator = started.makeAsyncIterator()
    for _ in 0..<count { _ = await iterator.next() }
  }

  /// Lets body `run` return.
  func open(gate run: UInt64) {
    gates[run]?.finish()
  }

  /// Ends both sides: the bodies still running are cancelled.
  func end() {
    host.retire()
    worker.stop()
    for gate in gates.values { gate.finish() }
  }
}

/// What the host's effects reported: effects lost, and why the worker was given up.
private final class Reports: Sendable {
  let state = Mutex<(lost: Int, faults: [RestartReason])>((0, []))
}
