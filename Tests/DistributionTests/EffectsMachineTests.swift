@testable import Bulkhead
@testable import BulkheadDistribution
import Testing

/// The host's end of a worker's effects connection as a state machine, row by row: a state
/// reached by some events, one more event, the commands it returns and the state it leaves.
/// Proxies are names, a test store's executor a stand-in; no socket, no task.
@Suite struct EffectsMachineTests {
  final class Executor: Sendable {}

  typealias Machine = EffectsMachine<String, Executor>

  /// An event of the machine as a row says it.
  enum Event: Sendable {
    /// A proxy starts for `run`; it is named "run N".
    case register(UInt64)
    case receive(Wire.WorkerMessage)
    /// The host sends `messages`, for a test store's executor when `forStore`.
    case send([Wire.HostMessage], forStore: Bool)
    /// The host sends `messages` for a second test store's executor.
    case sendForOtherStore([Wire.HostMessage])
    /// The liveness monitor probes at `millisecond`, with a deadline of 100 ms.
    case probe(millisecond: Int)
    /// The worker's pong `token` is read at `millisecond`.
    case pong(UInt64, millisecond: Int)
    case end(Machine.Phase)
  }

  /// A command as a row says it.
  enum Did: Equatable {
    case deliverAction(sequence: UInt64, to: String?)
    case deliverSleep(token: UInt64, to: String)
    case deliverWarning(String, to: String?)
    case deliverDismissal(to: String)
    case finish(String)
    case answer(token: UInt64)
    case deliverCall(token: UInt64, to: String?)
    case cancelCall(token: UInt64)
    case settled
    case settledOtherStore
    case fail(RestartReason)
    /// What `send` sends, and whether it told the store that remote work started.
    case sent([Wire.HostMessage], startedStore: Bool)
    /// What `register` found.
    case registered(Machine.Phase)
    case probed(Machine.Probe)
    case ended(proxies: [String], storeWasWaiting: Bool)
  }

  /// What a row checks of the state after.
  struct After: Equatable {
    var phase = Machine.Phase.open
    var proxies: [UInt64] = []
    var highestRun: UInt64 = 0
    var lastAction: UInt64 = 0
    var wakes: UInt64 = 0
    var settledWakes: UInt64 = 0
    var storeWaits = false
    var otherStoreWaits = false
  }

  struct Harness {
    var machine = Machine()
    let store = Executor()
    let otherStore = Executor()
    let origin = ContinuousClock.now

    mutating func feed(_ event: Event) -> [Did] {
      let origin = origin
      switch event {
      case let .register(run):
        let registered = machine.register(run, "run \(run)", warningsTo: .standardError)
        return [.registered(registered.phase)] + registered.commands.map(Self.did)
      case let .receive(message):
        return machine.received(message, at: origin) { revision in revision == 1 }.map(did)
      case let .pong(token, millisecond):
        return machine.received(.pong(token: token), at: origin + .milliseconds(millisecond)) { _ in false }
          .map(Self.did)
      case let .probe(millisecond):
        return [.probed(machine.probe(now: origin + .milliseconds(millisecond), deadline: .milliseconds(100)))]
      case let .send(messages, forStore):
        let sending = machine.sending(messages, for: forStore ? store : nil)
        return [.sent(sending.messages, startedStore: sending.started === store)]
      case let .sendForOtherStore(messages):
        let sending = machine.sending(messages, for: otherStore)
        return [.sent(sending.messages, startedStore: sending.started === otherStore)]
      case let .end(phase):
        let ended = machine.end(as: phase)
        return [.ended(proxies: ended.proxies.sorted(), storeWasWaiting: ended.waiting.contains { $0 === store })]
      }
    }

    func did(_ command: Machine.Command) -> Did {
      if case let .settled(executor) = command, executor === otherStore { return .settledOtherStore }
      return Self.did(command)
    }

    static func did(_ command: Machine.Command) -> Did {
      switch command {
      case let .deliverAction(sequence, _, _, proxy): .deliverAction(sequence: sequence, to: proxy)
      case let .deliverSleep(token, _, proxy): .deliverSleep(token: token, to: proxy)
      case let .deliverWarning(message, proxy, _): .deliverWarning(message, to: proxy)
      case let .deliverDismissal(proxy): .deliverDismissal(to: proxy)
      case let .finish(proxy): .finish(proxy)
      case let .answer(token, _, _, _): .answer(token: token)
      case let .deliverCall(call, proxy): .deliverCall(token: call.token, to: proxy)
      case let .cancelCall(token): .cancelCall(token: token)
      case .settled: .settled
      case let .fail(reason): .fail(reason)
      }
    }

    var after: After {
      After(
        phase: machine.phase, proxies: machine.proxies.keys.sorted(), highestRun: machine.highestRun,
        lastAction: machine.lastAction, wakes: machine.wakes, settledWakes: machine.settledWakes,
        storeWaits: machine.waiting.contains { $0.executor === store },
        otherStoreWaits: machine.waiting.contains { $0.executor === otherStore })
    }
  }

  struct Row: Sendable, CustomTestStringConvertible {
    let name: String
    let given: [Event]
    let event: Event
    let commands: [Did]
    let after: After

    var testDescription: String { name }
  }

  static func action(run: UInt64, _ sequence: UInt64) -> Event {
    .receive(.action(run: run, sequence: sequence, bytes: [], outcome: nil))
  }

  static func call(token: UInt64, run: UInt64, revision: UInt64 = 1) -> Wire.Call {
    Wire.Call(token: token, run: run, revision: revision, key: "k", question: [], streams: false)
  }

  static func madeUp(_ message: Wire.WorkerMessage) -> Did {
    .fail(.brokeProtocol(.unprompted(message: "\(message)")))
  }

  static let rows: [Row] = [
    Row(
      name: "an action of a running body goes to its proxy",
      given: [.register(1)], event: action(run: 1, 1),
      commands: [.deliverAction(sequence: 1, to: "run 1")],
      after: After(proxies: [1], highestRun: 1, lastAction: 1)),
    Row(
      name: "an action gap: action 3 after 1 gives the worker up",
      given: [.register(1), action(run: 1, 1)], event: action(run: 1, 3),
      commands: [.fail(.brokeProtocol(.actionsMissing(last: 1, came: 3)))],
      after: After(proxies: [1], highestRun: 1, lastAction: 3)),
    Row(
      name: "a body that ends after more actions than came gives the worker up",
      given: [.register(1), action(run: 1, 1)], event: .receive(.finished(run: 1, lastAction: 2)),
      commands: [.fail(.brokeProtocol(.endedWithActionsMissing(said: 2, last: 1)))],
      after: After(proxies: [1], highestRun: 1, lastAction: 1)),
    Row(
      name: "a body that ends with all its actions ends its proxy",
      given: [.register(1), action(run: 1, 1)], event: .receive(.finished(run: 1, lastAction: 1)),
      commands: [.finish("run 1")], after: After(highestRun: 1, lastAction: 1)),
    Row(
      name: "a message about a run never started gives the worker up",
      given: [.register(1)], event: action(run: 2, 1),
      commands: [madeUp(.action(run: 2, sequence: 1, bytes: [], outcome: nil))],
      after: After(proxies: [1], highestRun: 1)),
    Row(
      name: "an end of a run without a proxy is made up while the connection is open",
      given: [.register(1), .register(2), .receive(.finished(run: 1, lastAction: 0))],
      event: .receive(.finished(run: 1, lastAction: 0)),
      commands: [madeUp(.finished(run: 1, lastAction: 0))], after: After(proxies: [2], highestRun: 2)),
    Row(
      name: "a run named twice gives the worker up, and the second proxy is not entered",
      given: [.register(1)], event: .register(1),
      commands: [.registered(.closed), .fail(.brokeProtocol(.runNamedTwice(run: 1)))],
      after: After(proxies: [1], highestRun: 1)),
    Row(
      name: "a proxy that starts after the worker is gone finds it closed: its effect is lost",
      given: [.register(1), .end(.closed)], event: .register(2), commands: [.registered(.closed)],
      after: After(phase: .closed, highestRun: 1)),
    Row(
      name: "a proxy that starts after the worker retired finds it retired: nothing is lost",
      given: [.end(.retired)], event: .register(1), commands: [.registered(.retired)],
      after: After(phase: .retired)),
    Row(
      name: "a second fault after the first (the worker is gone) is said again; the first reason stays the link's",
      given: [.register(1), .end(.closed)], event: action(run: 9, 1),
      commands: [madeUp(.action(run: 9, sequence: 1, bytes: [], outcome: nil))],
      after: After(phase: .closed, highestRun: 1)),
    Row(
      name: "after the worker is gone, the end of a body whose proxy ended with it is no fault",
      given: [.register(1), .end(.closed)], event: .receive(.finished(run: 1, lastAction: 0)), commands: [],
      after: After(phase: .closed, highestRun: 1)),
    Row(
      name: "an action after its proxy was cancelled goes nowhere: the worker hears it was dropped",
      given: [.register(1), .register(2), .receive(.finished(run: 1, lastAction: 0))],
      event: action(run: 1, 1), commands: [.deliverAction(sequence: 1, to: nil)],
      after: After(proxies: [2], highestRun: 2, lastAction: 1)),
    Row(
      name: "a sleep of a body whose proxy ended is ignored",
      given: [.register(1), .register(2), .receive(.finished(run: 1, lastAction: 0))],
      event: .receive(.sleep(run: 1, token: 4, nanoseconds: 1)), commands: [],
      after: After(proxies: [2], highestRun: 2)),
    Row(
      name: "a wake-up sent after the cancellation still counts: the worker settles after both",
      given: [.register(1), .send([.start(run: 1)], forStore: true), .send([.cancel(run: 1)], forStore: true)],
      event: .send([.woke(token: 1)], forStore: true), commands: [.sent([.woke(token: 1)], startedStore: false)],
      after: After(proxies: [1], highestRun: 1, wakes: 3, storeWaits: true)),
    Row(
      name: "the first wake-up for a test store asks the worker to report settling",
      given: [.register(1)], event: .send([.start(run: 1)], forStore: true),
      commands: [.sent([.reportSettling, .start(run: 1)], startedStore: true)],
      after: After(proxies: [1], highestRun: 1, wakes: 1, storeWaits: true)),
    Row(
      name: "a message that wakes nothing is sent as it is",
      given: [], event: .send([.ping(token: 1)], forStore: true),
      commands: [.sent([.ping(token: 1)], startedStore: false)], after: After()),
    Row(
      name: "acknowledgements crossing: settled after the first of two wake-ups does not settle the store",
      given: [.send([.start(run: 1)], forStore: true), .send([.woke(token: 1)], forStore: true)],
      event: .receive(.settled(count: 1)), commands: [],
      after: After(wakes: 2, settledWakes: 1, storeWaits: true)),
    Row(
      name: "settled after every wake-up settles the store",
      given: [.send([.start(run: 1)], forStore: true), .send([.woke(token: 1)], forStore: true)],
      event: .receive(.settled(count: 2)), commands: [.settled], after: After(wakes: 2, settledWakes: 2)),
    Row(
      name: "a settled count that arrives late, after a larger one, changes nothing",
      given: [.send([.start(run: 1), .woke(token: 1)], forStore: true), .receive(.settled(count: 2))],
      event: .receive(.settled(count: 1)), commands: [], after: After(wakes: 2, settledWakes: 2)),
    Row(
      name: "two stores on one connection: the one whose wake-ups the worker settled after settles, the other waits",
      given: [.send([.cancel(run: 1)], forStore: true)], event: .sendForOtherStore([.start(run: 2)]),
      commands: [.sent([.start(run: 2)], startedStore: true)],
      after: After(wakes: 2, storeWaits: true, otherStoreWaits: true)),
    Row(
      name: "settled after the first store's wake-up settles only that store",
      given: [.send([.cancel(run: 1)], forStore: true), .sendForOtherStore([.start(run: 2)])],
      event: .receive(.settled(count: 1)), commands: [.settled],
      after: After(wakes: 2, settledWakes: 1, otherStoreWaits: true)),
    Row(
      name: "settled after both stores' wake-ups settles both",
      given: [.send([.cancel(run: 1)], forStore: true), .sendForOtherStore([.start(run: 2)])],
      event: .receive(.settled(count: 2)), commands: [.settled, .settledOtherStore],
      after: After(wakes: 2, settledWakes: 2)),
    Row(
      name: "settled after more wake-ups than were sent is made up",
      given: [.send([.start(run: 1)], forStore: true)], event: .receive(.settled(count: 2)),
      commands: [madeUp(.settled(count: 2))], after: After(wakes: 1, storeWaits: true)),
    Row(
      name: "the end of the connection hands back every proxy and the waiting store",
      given: [.register(1), .register(2), .send([.start(run: 1)], forStore: true)], event: .end(.closed),
      commands: [.ended(proxies: ["run 1", "run 2"], storeWasWaiting: true)],
      after: After(phase: .closed, highestRun: 2, wakes: 1)),
    Row(
      name: "a retired connection stays retired when it later closes",
      given: [.end(.retired)], event: .end(.closed), commands: [.ended(proxies: [], storeWasWaiting: false)],
      after: After(phase: .retired)),
    Row(
      name: "a probe pings the worker",
      given: [], event: .probe(millisecond: 0), commands: [.probed(.ping(token: 1))], after: After()),
    Row(
      name: "a probe before the ping is due waits for its pong",
      given: [.probe(millisecond: 0)], event: .probe(millisecond: 99), commands: [.probed(.wait)], after: After()),
    Row(
      name: "a probe after an unanswered ping is due finds a stall",
      given: [.probe(millisecond: 0)], event: .probe(millisecond: 100), commands: [.probed(.stalled)],
      after: After()),
    Row(
      name: "a pong in time lets the next probe ping again",
      given: [.probe(millisecond: 0), .pong(1, millisecond: 100)], event: .probe(millisecond: 1_000),
      commands: [.probed(.ping(token: 2))], after: After()),
    Row(
      name: "a pong after it was due is a stall at the next probe",
      given: [.probe(millisecond: 0), .pong(1, millisecond: 101)], event: .probe(millisecond: 1_000),
      commands: [.probed(.stalled)], after: After()),
    Row(
      name: "a pong of an earlier ping, crossing the next, is not taken for it",
      given: [.probe(millisecond: 0), .pong(1, millisecond: 10), .probe(millisecond: 1_000)],
      event: .pong(1, millisecond: 1_010), commands: [], after: After()),
    Row(
      name: "a pong for a ping never sent is made up",
      given: [.probe(millisecond: 0)], event: .pong(2, millisecond: 1), commands: [madeUp(.pong(token: 2))],
      after: After()),
    Row(
      name: "a closed connection is not probed",
      given: [.end(.closed)], event: .probe(millisecond: 0), commands: [.probed(.wait)],
      after: After(phase: .closed)),
    Row(
      name: "a question about a revision the host gave is answered",
      given: [], event: .receive(.question(token: 7, revision: 1, key: "k", bytes: [])),
      commands: [.answer(token: 7)], after: After()),
    Row(
      name: "a question about a revision the host never gave is made up",
      given: [], event: .receive(.question(token: 7, revision: 2, key: "k", bytes: [])),
      commands: [madeUp(.question(token: 7, revision: 2, key: "k", bytes: []))], after: After()),
    Row(
      name: "an async call of a running body goes to its proxy, to be answered on its executor",
      given: [.register(1)], event: .receive(.call(call(token: 3, run: 1))),
      commands: [.deliverCall(token: 3, to: "run 1")], after: After(proxies: [1], highestRun: 1)),
    Row(
      name: "an async call of a body that ended, or of no body, is answered with no proxy",
      given: [.register(1), .receive(.finished(run: 1, lastAction: 0))], event: .receive(.call(call(token: 3, run: 0))),
      commands: [.deliverCall(token: 3, to: nil)], after: After(highestRun: 1)),
    Row(
      name: "an async call of a body the host never started is made up",
      given: [.register(1)], event: .receive(.call(call(token: 3, run: 2))),
      commands: [madeUp(.call(call(token: 3, run: 2)))], after: After(proxies: [1], highestRun: 1)),
    Row(
      name: "an async call about a revision the host never gave is made up",
      given: [.register(1)], event: .receive(.call(call(token: 3, run: 1, revision: 2))),
      commands: [madeUp(.call(call(token: 3, run: 1, revision: 2)))], after: After(proxies: [1], highestRun: 1)),
    Row(
      name: "the worker's cancel of a call goes to the calls' machine",
      given: [], event: .receive(.cancelCall(token: 3)), commands: [.cancelCall(token: 3)], after: After()),
    Row(
      name: "a call's answers wake the worker: a test store waits for it to settle after them",
      given: [.register(1)],
      event: .send([.callElement(token: 1, [1]), .callEnded(token: 1, .finished(warnings: []))], forStore: true),
      commands: [
        .sent(
          [.reportSettling, .callElement(token: 1, [1]), .callEnded(token: 1, .finished(warnings: []))], startedStore: true)
      ],
      after: After(proxies: [1], highestRun: 1, wakes: 2, storeWaits: true)),
    Row(
      name: "a warning of a body whose proxy ended goes to the store's handler",
      given: [.register(1), .receive(.finished(run: 1, lastAction: 0))], event: .receive(.warning(run: 1, message: "w")),
      commands: [.deliverWarning("w", to: nil)], after: After(highestRun: 1)),
    Row(
      name: "a dismissal from a body goes to its proxy",
      given: [.register(1)], event: .receive(.dismiss(run: 1)),
      commands: [.deliverDismissal(to: "run 1")], after: After(proxies: [1], highestRun: 1)),
    Row(
      name: "a dismissal from a body whose proxy ended is dropped: its feature is gone",
      given: [.register(1), .receive(.finished(run: 1, lastAction: 0))], event: .receive(.dismiss(run: 1)),
      commands: [], after: After(highestRun: 1)),
    Row(
      name: "a dismissal from a body never started is made up",
      given: [], event: .receive(.dismiss(run: 4)),
      commands: [madeUp(.dismiss(run: 4))], after: After()),
  ]

  @Test(arguments: rows) func row(_ row: Row) {
    var harness = Harness()
    for event in row.given { _ = harness.feed(event) }
    #expect(harness.feed(row.event) == row.commands)
    #expect(harness.after == row.after)
  }
}
