@testable import BulkheadDistribution
import Testing

/// A worker's slots and the outcomes it computes ahead, event by event, without processes:
/// each row plays `given` on fresh slots whose state is a number, then `event`, and checks the
/// commands that follow and the slots after. Slot "a" starts at version 1, state 10; each
/// outcome computed ahead adds one to the state and the version.
@Suite struct WorkerSlotsTests {
  typealias Slots = WorkerSlots<Int>

  /// What a row expects of the slots after its event.
  enum After: Equatable, Sendable {
    /// Slot "a" at this version and state.
    case slot(version: UInt64, state: Int)
    case dropped
    /// The open chain of slot "a", by sequence.
    case open([UInt64])
    /// The tentative outcomes still waiting for the host's word, by sequence.
    case waiting([UInt64])
    /// Where the next outcome of slot "a" would start.
    case tip(version: UInt64, state: Int)

    func holds(in slots: Slots) -> Bool {
      let a = WorkerSlotsTests.a
      return switch self {
      case let .slot(version, state): slots.slots[a] == Slots.Slot(version: version, state: state)
      case .dropped: slots.slots[a] == nil
      case let .open(chain): (slots.open[a] ?? []) == chain
      case let .waiting(sequences): slots.tentative.keys.sorted() == sequences
      case let .tip(version, state): slots.tip(of: a) == Slots.Slot(version: version, state: state)
      }
    }
  }

  struct Row: Sendable, CustomTestStringConvertible {
    let name: String
    let given: [Slots.Event]
    let event: Slots.Event
    let commands: [Slots.Command]
    let after: [After]

    var testDescription: String { name }
  }

  static let a: [UInt8] = [0xA]
  static let start = Slots.Event.ran(slot: a, Slots.Slot(version: 1, state: 10))

  /// Effect action `sequence` computed ahead on slot "a", from version `from`, keeping body
  /// `100 + sequence`.
  static func ahead(_ sequence: UInt64, from version: UInt64) -> Slots.Event {
    .computedAhead(
      sequence: sequence, slot: a,
      outcome: Wire.Outcome(baseVersion: version, version: version + 1, patch: nil, effect: .run(100 + sequence)),
      state: 10 + Int(version), runs: [100 + sequence])
  }

  static let two = [start, ahead(1, from: 1), ahead(2, from: 2)]

  static let rows: [Row] = [
    Row(
      name: "outcomes computed ahead chain on a slot", given: [start, ahead(1, from: 1)],
      event: ahead(2, from: 2), commands: [],
      after: [.open([1, 2]), .tip(version: 3, state: 12), .slot(version: 1, state: 10)]),
    Row(
      name: "a taken outcome becomes the slot", given: two, event: .settled(sequence: 1, taken: true),
      commands: [], after: [.slot(version: 2, state: 11), .open([2]), .waiting([2])]),
    Row(
      name: "acknowledgements crossing: the later taken first takes the earlier with it", given: two,
      event: .settled(sequence: 2, taken: true),
      commands: [], after: [.slot(version: 3, state: 12), .open([]), .waiting([1])]),
    Row(
      name: "acknowledgements crossing: the earlier's word after the later's leaves the later state",
      given: two + [.settled(sequence: 2, taken: true)], event: .settled(sequence: 1, taken: true),
      commands: [], after: [.slot(version: 3, state: 12), .waiting([])]),
    Row(
      name: "an outcome not taken drops its bodies and closes the ones after it", given: two,
      event: .settled(sequence: 1, taken: false),
      commands: [.discard([101])], after: [.slot(version: 1, state: 10), .open([]), .waiting([2])]),
    Row(
      name: "one computed after an outcome not taken is not taken either",
      given: two + [.settled(sequence: 1, taken: false)], event: .settled(sequence: 2, taken: false),
      commands: [.discard([102])], after: [.slot(version: 1, state: 10), .waiting([])]),
    Row(
      name: "a stale word on the same action the second time changes nothing",
      given: two + [.settled(sequence: 1, taken: true)], event: .settled(sequence: 1, taken: false),
      commands: [], after: [.slot(version: 2, state: 11), .open([2])]),
    Row(
      name: "a word on an action never computed ahead changes nothing", given: two,
      event: .settled(sequence: 9, taken: false), commands: [], after: [.open([1, 2]), .waiting([1, 2])]),
    Row(
      name: "a request closes the chain at the host's version", given: two,
      event: .requested(slot: a, hostVersion: 2),
      commands: [], after: [.slot(version: 2, state: 11), .open([]), .waiting([1, 2]), .tip(version: 2, state: 11)]),
    Row(
      name: "after a request a closed outcome's word does not move the slot back", given: two + [.requested(slot: a, hostVersion: 3)],
      event: .settled(sequence: 1, taken: true), commands: [], after: [.slot(version: 3, state: 12)]),
    Row(
      name: "a closed outcome not taken still drops its bodies", given: two + [.requested(slot: a, hostVersion: 1)],
      event: .settled(sequence: 2, taken: false), commands: [.discard([102])], after: [.slot(version: 1, state: 10)]),
    Row(
      name: "a dropped slot stays dropped when a word comes", given: two + [.dropped(slot: a)],
      event: .settled(sequence: 1, taken: true), commands: [], after: [.dropped, .open([])]),
  ]

  @Test(arguments: rows)
  func row(_ row: Row) {
    var slots = Slots()
    for event in row.given { _ = slots.handle(event) }
    #expect(slots.handle(row.event) == row.commands)
    for expectation in row.after {
      #expect(expectation.holds(in: slots), "\(expectation)")
    }
  }

  @Test func everyNewStateHasANewVersion() {
    var slots = Slots()
    #expect([slots.newVersion(), slots.newVersion()] == [1, 2])
  }
}
