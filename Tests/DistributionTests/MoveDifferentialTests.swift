@_spi(Testing) import Bulkhead
import BulkheadDistribution
import Examples
import Testing
import TransportTestSupport

/// Random action sequences during which the boundaries move between workers and the host at
/// random (seeded, reproducible): after every step, the state equals one process's.
@MainActor
@Suite(.serialized) struct MoveDifferentialTests {
  @Test(arguments: [1, 2]) func twoCounters(seed: UInt64) async throws {
    let composition = try composition(app: "two-counters", placement: "counter1\ncounter2\n")
    defer { composition.shutdown() }
    let pair = StorePair(TwoCounters.State()) { TwoCounters() } placed: { composition.compose(TwoCounters()) }
    var generator = SeededGenerator(seed: seed)
    var moves = 0
    for step in 0..<400 {
      if Int.random(in: 0..<10, using: &generator) == 0 {
        try Self.moveAtRandom(["counter1", "counter2"], of: composition, using: &generator)
        moves += 1
      }
      let counter: Counter.Action = Bool.random(using: &generator) ? .incrementButtonTapped : .decrementButtonTapped
      await pair.send(Bool.random(using: &generator) ? .counter1(counter) : .counter2(counter))
      guard pair.placed.state == pair.local.state else {
        Issue.record("seed \(seed), step \(step): \(pair.placed.state) != \(pair.local.state)")
        return
      }
    }
    #expect(moves > 20)
  }

  /// Timers in a pool of two, ticking on a test clock, started, stopped and removed while the
  /// pool moves: effects go on where they started, and cancellation reaches them from either
  /// side.
  @Test(arguments: [3, 4]) func timersWithEffects(seed: UInt64) async throws {
    let events = Events()
    let composition = try composition(app: "timers", placement: "timers pool 2\n", events: events)
    defer { composition.shutdown() }
    let pair = StorePair(Timers.State()) { Timers() } placed: { composition.compose(Timers()) }
    var generator = SeededGenerator(seed: seed)
    var moves = 0
    for step in 0..<300 {
      switch Int.random(in: 0..<12, using: &generator) {
      case 0:
        try Self.moveAtRandom(["timers"], of: composition, using: &generator)
        moves += 1
      case 1, 2:
        await pair.advance(by: .seconds(1))
      default:
        await pair.send(Self.timerAction(pair.local.state, &generator))
      }
      guard pair.placed.state == pair.local.state else {
        Issue.record("seed \(seed), step \(step): \(pair.placed.state) != \(pair.local.state)")
        return
      }
    }
    #expect(moves > 10)
    #expect(pair.local.state.totalTicks > 20)
    #expect(!events.all.contains { if case .effectsLost = $0 { true } else { false } })
  }

  /// An `ifLet` sheet whose save runs an effect, moved while it is up, saving or dismissed.
  @Test func anIfLetSheetWithASave() async throws {
    let composition = try composition(app: "profile", placement: "editForm\n")
    defer { composition.shutdown() }
    let initial = ProfileEditor.State(name: "Blob", email: "blob@example.com")
    let pair = StorePair(initial) { ProfileEditor() } placed: { composition.compose(ProfileEditor()) }
    var generator = SeededGenerator(seed: 5)
    var moves = 0
    for step in 0..<300 {
      if Int.random(in: 0..<8, using: &generator) == 0 {
        try Self.moveAtRandom(["editForm"], of: composition, using: &generator)
        moves += 1
      }
      let action: ProfileEditor.Action =
        pair.local.state.editForm == nil
        ? .editButtonTapped
        : Int.random(in: 0..<4, using: &generator) == 0
          ? .editForm(.saveButtonTapped) : .editForm(.nameChanged("Blob \(Int.random(in: 0..<100, using: &generator))"))
      await pair.send(action)
      guard pair.placed.state == pair.local.state else {
        Issue.record("step \(step): \(pair.placed.state) != \(pair.local.state)")
        return
      }
    }
    #expect(moves > 20)
  }

  /// Moves one of `boundaries` to where it is not.
  private static func moveAtRandom(
    _ boundaries: [String], of composition: Composition, using generator: inout SeededGenerator
  ) throws {
    let boundary = boundaries[Int.random(in: 0..<boundaries.count, using: &generator)]
    _ = try composition.move(boundary, to: composition.residence(of: boundary) == .host ? .worker : .host)
  }

  /// Mostly what `Timers.randomAction` sends, with starts and stops of the timers there are.
  private static func timerAction(_ state: Timers.State, _ generator: inout SeededGenerator) -> Timers.Action {
    guard let id = state.timers.ids.randomElement(using: &generator), Int.random(in: 0..<3, using: &generator) > 0 else {
      return Timers.randomAction(state, &generator)
    }
    let action: Timers.Timer.Action = Bool.random(using: &generator) ? .startTapped : .stopTapped
    return .timers(.element(id: id, action: action))
  }
}
