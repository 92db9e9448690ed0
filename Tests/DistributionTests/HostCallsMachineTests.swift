@testable import BulkheadDistribution
import Testing

/// The host's side of a worker's async calls as a state machine, row by row: the tasks that
/// answer them are names, and no task runs.
@Suite struct HostCallsMachineTests {
  typealias Machine = HostCallsMachine<String>

  enum Event: Sendable {
    case asked(UInt64)
    case began(UInt64)
    case cancelled(UInt64)
    case finished(UInt64)
    case end
  }

  /// A command, or what `finished` said, as a row says it.
  enum Did: Equatable {
    case start(token: UInt64)
    case cancel(String)
    case fail(RestartReason)
    case sendsEnd(Bool)
  }

  struct Row: Sendable, CustomTestStringConvertible {
    let name: String
    let given: [Event]
    let event: Event
    let did: [Did]
    /// The calls open after, and whether each is cancelled.
    let open: [UInt64: Bool]

    var testDescription: String { name }
  }

  static func feed(_ machine: inout Machine, _ event: Event) -> [Did] {
    switch event {
    case let .asked(token):
      return machine.asked(Wire.Call(token: token, run: 1, revision: 1, key: "k", question: [], streams: false))
        .map(did)
    case let .began(token): return machine.began(token, "task \(token)").map(did)
    case let .cancelled(token): return machine.cancelled(token).map(did)
    case let .finished(token): return [.sendsEnd(machine.finished(token))]
    case .end: return machine.end().map(did)
    }
  }

  static func did(_ command: Machine.Command) -> Did {
    switch command {
    case let .start(call): .start(token: call.token)
    case let .cancel(task): .cancel(task)
    case let .fail(reason): .fail(reason)
    }
  }

  static let rows: [Row] = [
    Row(name: "a call starts a task", given: [], event: .asked(1), did: [.start(token: 1)], open: [1: false]),
    Row(
      name: "calls may arrive out of order", given: [.asked(2)], event: .asked(1), did: [.start(token: 1)],
      open: [1: false, 2: false]),
    Row(
      name: "a call named while its token is answered gives the worker up", given: [.asked(1)], event: .asked(1),
      did: [.fail(.brokeProtocol(.callNamedTwice(token: 1)))], open: [1: false]),
    Row(
      name: "the end of an answered call is sent", given: [.asked(1), .began(1)], event: .finished(1),
      did: [.sendsEnd(true)], open: [:]),
    Row(
      name: "the worker's cancel cancels the running task", given: [.asked(1), .began(1)], event: .cancelled(1),
      did: [.cancel("task 1")], open: [1: true]),
    Row(
      name: "a cancel before the task began cancels it as it begins", given: [.asked(1), .cancelled(1)],
      event: .began(1), did: [.cancel("task 1")], open: [1: true]),
    Row(
      name: "the end of a cancelled call is not sent: the worker stopped waiting",
      given: [.asked(1), .began(1), .cancelled(1)], event: .finished(1), did: [.sendsEnd(false)], open: [:]),
    Row(
      name: "a cancel after the end is a normal race", given: [.asked(1), .began(1), .finished(1)],
      event: .cancelled(1), did: [], open: [:]),
    Row(
      name: "a cancel of a call never made gives the worker up", given: [.asked(1)], event: .cancelled(2),
      did: [.fail(.brokeProtocol(.unprompted(message: "cancelCall(token: 2)")))], open: [1: false]),
    Row(
      name: "a task that ends before it is entered is let be", given: [.asked(1), .finished(1)], event: .began(1),
      did: [], open: [:]),
    Row(
      name: "the end of the connection cancels every running call",
      given: [.asked(1), .began(1), .asked(2), .began(2), .asked(3)], event: .end,
      did: [.cancel("task 1"), .cancel("task 2")], open: [:]),
    Row(
      name: "after the end a task that begins is cancelled", given: [.asked(1), .end], event: .began(1),
      did: [.cancel("task 1")], open: [:]),
    Row(name: "after the end a call is not answered", given: [.end], event: .asked(1), did: [], open: [:]),
    Row(
      name: "after the end no answer is sent", given: [.asked(1), .began(1), .end], event: .finished(1),
      did: [.sendsEnd(false)], open: [:]),
  ]

  @Test(arguments: rows) func row(_ row: Row) {
    var machine = Machine()
    for event in row.given { _ = Self.feed(&machine, event) }
    let did = Self.feed(&machine, row.event)
    // The connection's end cancels in no particular order.
    if case .end = row.event {
      #expect(Set(did.map { "\($0)" }) == Set(row.did.map { "\($0)" }))
    } else {
      #expect(did == row.did)
    }
    #expect(machine.open.mapValues(\.isCancelled) == row.open)
  }
}
