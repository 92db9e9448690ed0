@testable import BulkheadDistribution
import Testing

/// The worker's side of the effects connection, event by event, without processes: each row
/// plays `given` on a fresh machine (a window of 4 actions, batches of 3), then `event`, and
/// checks the commands that follow and what the machine holds after.
@Suite struct WorkerEffectsMachineTests {
  typealias Machine = WorkerEffectsMachine<String, String, String>

  /// What a row expects of the machine after its event.
  enum After: Equatable, Sendable {
    case kept([UInt64])
    case running([UInt64])
    case unacknowledged(Int)
    case blocked([String])
    case awaitingTurn([String])
    case isTurnTaken(Bool)
    case sleeping([UInt64])
    case asking([UInt64])
    case calling([UInt64])
    case wakes(UInt64)
    case reportedWakes(UInt64)
    case outgoing([Wire.WorkerMessage])
    case isClosed(Bool)

    func holds(in machine: Machine) -> Bool {
      switch self {
      case let .kept(runs): machine.kept.keys.sorted() == runs
      case let .running(runs): machine.runs.keys.sorted() == runs
      case let .unacknowledged(count): machine.unacknowledged == count
      case let .blocked(waiters): machine.blocked == waiters
      case let .awaitingTurn(waiters): machine.awaitingTurn == waiters
      case let .isTurnTaken(taken): machine.isTurnTaken == taken
      case let .sleeping(tokens): machine.sleeping.keys.sorted() == tokens
      case let .asking(tokens): machine.asking.keys.sorted() == tokens
      case let .calling(tokens): machine.calls.keys.sorted() == tokens
      case let .wakes(count): machine.wakes == count
      case let .reportedWakes(count): machine.reportedWakes == count
      case let .outgoing(messages): machine.outgoing == messages
      case let .isClosed(closed): machine.isClosed == closed
      }
    }
  }

  struct Row: Sendable, CustomTestStringConvertible {
    let name: String
    let given: [Machine.Event]
    let event: Machine.Event
    let commands: [Machine.Command]
    let after: [After]

    var testDescription: String { name }
  }

  static let answer = Wire.DependencyAnswer.answered([7], warnings: [])

  /// An action of run 1 numbered `sequence`, with no outcome.
  static func action(_ sequence: UInt64) -> Wire.WorkerMessage {
    .action(run: 1, sequence: sequence, bytes: [UInt8(sequence)], outcome: nil)
  }

  /// A body of run 1 forwards and queues actions 1 to `count`.
  static func streamed(_ count: UInt64) -> [Machine.Event] {
    (1...count).flatMap { [Machine.Event.forward, .queue(action($0), sequence: $0)] }
  }

  static let started: [Machine.Event] = [.keep("body"), .received(.start(run: 1)), .began(run: 1, "task 1")]

  static let runs: [Row] = [
    Row(
      name: "a kept body is numbered", given: [], event: .keep("body"),
      commands: [.numbered(1)], after: [.kept([1])]),
    Row(
      name: "the host starts a kept body", given: [.keep("body")], event: .received(.start(run: 1)),
      commands: [.start(run: 1, "body")], after: [.kept([]), .running([1]), .wakes(1)]),
    Row(
      name: "a message about a run never kept stops the worker", given: [.keep("body")],
      event: .received(.start(run: 2)),
      commands: [.close], after: [.isClosed(true), .kept([])]),
    Row(
      name: "a second start of a running body stops the worker", given: started,
      event: .received(.start(run: 1)),
      commands: [.cancel("task 1"), .close], after: [.isClosed(true), .running([])]),
    Row(
      name: "a cancelled kept body ends claiming no action", given: [.keep("body")],
      event: .received(.cancel(run: 1)),
      commands: [.write], after: [.kept([]), .outgoing([.finished(run: 1, lastAction: 0)]), .wakes(1)]),
    Row(
      name: "a running body is cancelled", given: started, event: .received(.cancel(run: 1)),
      commands: [.cancel("task 1")], after: [.running([1]), .wakes(2)]),
    Row(
      name: "a cancel of a run never numbered stops the worker", given: [.keep("body")],
      event: .received(.cancel(run: 2)), commands: [.close], after: [.isClosed(true)]),
    Row(
      name: "a cancel that ended already is a normal race", given: started + [.returned(run: 1)],
      event: .received(.cancel(run: 1)), commands: [], after: [.isClosed(false), .wakes(2)]),
    Row(
      name: "a cancel before the body's task exists cancels it when it does",
      given: [.keep("body"), .received(.start(run: 1)), .received(.cancel(run: 1))],
      event: .began(run: 1, "task 1"), commands: [.cancel("task 1")], after: [.running([1])]),
    Row(
      name: "a body that returned before its task was noted is not kept running",
      given: [.keep("body"), .received(.start(run: 1)), .returned(run: 1)],
      event: .began(run: 1, "task 1"), commands: [], after: [.running([])]),
    Row(
      name: "bodies the host will never start are forgotten", given: [.keep("a"), .keep("b")],
      event: .discard([1]), commands: [], after: [.kept([2])]),
    Row(
      name: "a ping is answered at once", given: [], event: .received(.ping(token: 3)),
      commands: [.write], after: [.outgoing([.pong(token: 3)]), .wakes(0)]),
  ]

  static let actions: [Row] = [
    Row(
      name: "an action is numbered and waits for a batch", given: [.forward],
      event: .queue(action(1), sequence: 1),
      commands: [.writeLater], after: [.outgoing([action(1)]), .unacknowledged(1), .isTurnTaken(false)]),
    Row(
      name: "a full batch is written at once", given: streamed(2) + [.forward],
      event: .queue(action(3), sequence: 3), commands: [.write], after: [.unacknowledged(3)]),
    Row(
      name: "a body waits for the turn another holds", given: [.forward], event: .forward,
      commands: [.waitForTurn], after: [.isTurnTaken(true), .unacknowledged(1)]),
    Row(
      name: "the turn passes to the body waiting, with the next number",
      given: [.forward, .waitForTurn("second")], event: .queue(action(1), sequence: 1),
      commands: [.writeLater, .resume("second", .numbered(2))],
      after: [.isTurnTaken(true), .awaitingTurn([]), .unacknowledged(2)]),
    Row(
      name: "a body that finds the turn free once it waits takes it", given: [],
      event: .waitForTurn("late"), commands: [.resume("late", .numbered(1))], after: [.isTurnTaken(true)]),
    Row(
      name: "a body's dismissal goes after the actions it sent before, at once",
      given: started + streamed(1), event: .dismiss(run: 1),
      commands: [.write], after: [.outgoing([action(1), .dismiss(run: 1)])]),
    Row(
      name: "a body's end claims only the actions queued, not one still being computed ahead",
      given: streamed(1) + [.forward], event: .returned(run: 2),
      commands: [.write], after: [.outgoing([action(1), .finished(run: 2, lastAction: 1)])]),
    Row(
      name: "a full window writes, and the body waits", given: streamed(3) + [.forward],
      event: .queue(action(4), sequence: 4), commands: [.write, .waitForWindow], after: [.unacknowledged(4)]),
    Row(
      name: "a body that finds the window full waits", given: streamed(4), event: .waitForWindow("body"),
      commands: [], after: [.blocked(["body"])]),
    Row(
      name: "a body that finds room once it waits goes on", given: streamed(4) + [.received(.processed(sequence: 1, tookOutcome: true))],
      event: .waitForWindow("body"), commands: [.resume("body", .go)], after: [.blocked([])]),
    Row(
      name: "acknowledgements down to half a window let waiting bodies go",
      given: streamed(4) + [.waitForWindow("body"), .received(.processed(sequence: 1, tookOutcome: true))],
      event: .received(.processed(sequence: 2, tookOutcome: false)),
      commands: [.settle(sequence: 2, taken: false), .resume("body", .go)],
      after: [.unacknowledged(2), .blocked([]), .wakes(2)]),
    Row(
      name: "acknowledgements that cross are settled in the order they come",
      given: streamed(2) + [.received(.processed(sequence: 2, tookOutcome: true))],
      event: .received(.processed(sequence: 1, tookOutcome: true)),
      commands: [.settle(sequence: 1, taken: true)], after: [.unacknowledged(0)]),
    Row(
      name: "an acknowledgement of an action never numbered stops the worker", given: streamed(1),
      event: .received(.processed(sequence: 2, tookOutcome: true)), commands: [.close], after: [.isClosed(true)]),
    Row(
      name: "an acknowledgement beyond those outstanding stops the worker",
      given: streamed(1) + [.received(.processed(sequence: 1, tookOutcome: true))],
      event: .received(.processed(sequence: 1, tookOutcome: true)), commands: [.close], after: [.isClosed(true)]),
  ]

  static let waits: [Row] = [
    Row(
      name: "a sleep asks the host once its task waits",
      given: [.reserveSleep], event: .sleep(token: 1, run: 4, nanoseconds: 9, "sleeper"),
      commands: [.write], after: [.sleeping([1]), .outgoing([.sleep(run: 4, token: 1, nanoseconds: 9)])]),
    Row(
      name: "the host wakes a sleep", given: [.reserveSleep, .sleep(token: 1, run: 4, nanoseconds: 9, "sleeper")],
      event: .received(.woke(token: 1)), commands: [.resume("sleeper", .woke)], after: [.sleeping([]), .wakes(1)]),
    Row(
      name: "a wake-up after the sleep's cancellation wakes nothing",
      given: [.reserveSleep, .sleep(token: 1, run: 4, nanoseconds: 9, "sleeper"), .cancelSleep(token: 1)],
      event: .received(.woke(token: 1)), commands: [], after: [.isClosed(false), .wakes(1)]),
    Row(
      name: "a sleep cancelled before its task waits never asks the host",
      given: [.reserveSleep, .cancelSleep(token: 1)], event: .sleep(token: 1, run: 4, nanoseconds: 9, "sleeper"),
      commands: [.resume("sleeper", .cancelled)], after: [.outgoing([]), .sleeping([])]),
    Row(
      name: "a wake-up of a sleep never asked stops the worker", given: [.reserveSleep],
      event: .received(.woke(token: 2)), commands: [.close], after: [.isClosed(true)]),
    Row(
      name: "a question goes to the host", given: [],
      event: .ask(revision: 2, key: "uuid", question: [1], "asker"),
      commands: [.write], after: [.asking([1]), .outgoing([.question(token: 1, revision: 2, key: "uuid", bytes: [1])])]),
    Row(
      name: "the answer goes to the asker", given: [.ask(revision: 2, key: "uuid", question: [1], "asker")],
      event: .received(.answer(token: 1, answer)), commands: [.resume("asker", .answered(answer))],
      after: [.asking([]), .wakes(0)]),
    Row(
      name: "a stale answer the second time stops the worker",
      given: [.ask(revision: 2, key: "uuid", question: [1], "asker"), .received(.answer(token: 1, answer))],
      event: .received(.answer(token: 1, answer)), commands: [.close], after: [.isClosed(true)]),
  ]

  /// Call 1 of run 4, for one answer or for a stream.
  static func call(streams: Bool = false) -> Wire.Call {
    Wire.Call(token: 1, run: 4, revision: 2, key: "quotes", question: [1], streams: streams)
  }

  static let calling: [Machine.Event] = [.reserveCall, .call(call(), "caller")]
  static let streaming: [Machine.Event] = [.reserveCall, .call(call(streams: true), "receiver")]
  static let answered = Wire.CallEnd.answered([7], warnings: [])

  static let calls: [Row] = [
    Row(
      name: "an async call takes a token, then goes to the host once its task waits", given: [.reserveCall],
      event: .call(call(), "caller"), commands: [.write], after: [.calling([1]), .outgoing([.call(call())])]),
    Row(
      name: "the end of a call goes to its caller, and wakes the worker",
      given: calling, event: .received(.callEnded(token: 1, answered)),
      commands: [.resume("caller", .ended(answered))], after: [.calling([]), .wakes(1)]),
    Row(
      name: "a stream's answers go to its receiver as they come, each a wake",
      given: streaming + [.received(.callElement(token: 1, [5]))], event: .received(.callElement(token: 1, [6])),
      commands: [.resume("receiver", .element([6]))], after: [.calling([1]), .wakes(2)]),
    Row(
      name: "a cancelled call resumes its caller and tells the host",
      given: calling + [.writing], event: .cancelCall(token: 1),
      commands: [.resume("caller", .cancelled), .write], after: [.calling([]), .outgoing([.cancelCall(token: 1)])]),
    Row(
      name: "a call cancelled before its task waits never reaches the host",
      given: [.reserveCall, .cancelCall(token: 1)], event: .call(call(), "caller"),
      commands: [.resume("caller", .cancelled)], after: [.calling([]), .outgoing([])]),
    Row(
      name: "an answer after the call's cancel is a normal race: it wakes nothing",
      given: calling + [.cancelCall(token: 1)], event: .received(.callEnded(token: 1, answered)),
      commands: [], after: [.isClosed(false), .wakes(1)]),
    Row(
      name: "a cancel after the call ended does nothing", given: calling + [.received(.callEnded(token: 1, answered))],
      event: .cancelCall(token: 1), commands: [], after: [.calling([])]),
    Row(
      name: "an answer to a call never made stops the worker", given: calling,
      event: .received(.callEnded(token: 2, answered)), commands: [.resume("caller", .closed), .close],
      after: [.isClosed(true), .calling([])]),
    Row(
      name: "a stream's answer to a call that takes one answer stops the worker", given: calling,
      event: .received(.callElement(token: 1, [5])), commands: [.resume("caller", .closed), .close],
      after: [.isClosed(true)]),
    Row(
      name: "the end of the connection ends every call as closed", given: calling,
      event: .stop, commands: [.resume("caller", .closed), .close], after: [.isClosed(true), .calling([])]),
    Row(
      name: "after the end a call gets no token", given: [.stop], event: .reserveCall, commands: [],
      after: [.calling([])]),
    Row(
      name: "a call reserved before the end is closed when it would wait", given: [.reserveCall, .stop],
      event: .call(call(), "caller"), commands: [.resume("caller", .closed)], after: [.outgoing([])]),
  ]

  static let settling: [Row] = [
    Row(
      name: "settling is not looked at until the host asks for reports", given: [.keep("body")],
      event: .received(.start(run: 1)), commands: [.start(run: 1, "body")], after: [.wakes(1)]),
    Row(
      name: "asked for reports, the worker looks at its executor", given: [.keep("body"), .received(.start(run: 1))],
      event: .received(.reportSettling), commands: [.checkSettled(wakes: 1)], after: [.reportedWakes(0)]),
    Row(
      name: "settled after the wakes handled, the worker says so",
      given: [.keep("body"), .received(.start(run: 1)), .received(.reportSettling)],
      event: .settled(after: 1), commands: [.write], after: [.reportedWakes(1), .outgoing([.settled(count: 1)])]),
    Row(
      name: "an idle executor is not settled after a wake whose commands are still to be performed",
      given: [.keep("body"), .received(.reportSettling), .received(.start(run: 1))],
      event: .idle, commands: [], after: [.wakes(1), .reportedWakes(0)]),
    Row(
      name: "a wake is looked at once its commands are performed, after them",
      given: [.keep("body"), .received(.reportSettling)],
      event: .received(.start(run: 1)), commands: [.start(run: 1, "body"), .performed(wakes: 1)], after: [.wakes(1)]),
    Row(
      name: "performed, the wake is covered when the executor is looked at",
      given: [.keep("body"), .received(.reportSettling), .received(.start(run: 1))],
      event: .performed(wakes: 1), commands: [.checkSettled(wakes: 1)], after: [.reportedWakes(0)]),
    Row(
      name: "an idle executor is looked at after the wakes performed",
      given: [.keep("body"), .received(.reportSettling), .received(.start(run: 1)), .performed(wakes: 1)],
      event: .idle, commands: [.checkSettled(wakes: 1)], after: [.reportedWakes(0)]),
    Row(
      name: "the same settling is reported once",
      given: [.keep("body"), .received(.start(run: 1)), .received(.reportSettling), .settled(after: 1), .writing],
      event: .idle, commands: [], after: [.reportedWakes(1)]),
    Row(
      name: "the writer takes what waits, in order", given: streamed(2) + [.received(.ping(token: 1))],
      event: .writing, commands: [.post([action(1), action(2), .pong(token: 1)])], after: [.outgoing([])]),
  ]

  static let stopping: [Row] = [
    Row(
      name: "stopping cancels bodies and lets every waiter go",
      given: started + streamed(4) + [
        .waitForWindow("sender"), .forward, .waitForTurn("next"), .reserveSleep,
        .sleep(token: 1, run: 1, nanoseconds: 1, "sleeper"), .ask(revision: 1, key: "k", question: [], "asker"),
      ],
      event: .stop,
      commands: [
        .cancel("task 1"), .resume("sender", .go), .resume("sleeper", .cancelled), .resume("asker", .answered(nil)),
        .resume("next", .closed), .close,
      ],
      after: [.isClosed(true), .running([]), .blocked([]), .sleeping([]), .asking([]), .outgoing([])]),
    Row(
      name: "a second fault after the first does nothing more", given: [.keep("body"), .received(.start(run: 9))],
      event: .received(.start(run: 1)), commands: [], after: [.isClosed(true)]),
    Row(
      name: "after the end an action goes nowhere", given: [.stop], event: .forward, commands: [],
      after: [.unacknowledged(0)]),
    Row(
      name: "after the end a question has no answer", given: [.stop],
      event: .ask(revision: 1, key: "k", question: [], "asker"), commands: [.resume("asker", .answered(nil))],
      after: [.asking([])]),
    Row(
      name: "after the end a sleep gets no token", given: [.stop], event: .reserveSleep, commands: [],
      after: [.sleeping([])]),
    Row(
      name: "after the end a body's end is not written", given: started + [.stop], event: .returned(run: 1),
      commands: [], after: [.outgoing([])]),
  ]

  @Test(arguments: runs + actions + waits + calls + settling + stopping)
  func row(_ row: Row) {
    var machine = Machine(window: 4, batch: 3)
    for event in row.given { _ = machine.handle(event) }
    let commands = machine.handle(row.event)
    #expect(commands == row.commands)
    for expectation in row.after {
      #expect(expectation.holds(in: machine), "\(expectation)")
    }
  }
}
