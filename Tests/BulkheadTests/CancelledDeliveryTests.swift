@_spi(Testing) import Bulkhead
import Testing
import TransportTestSupport

/// A child whose one effect sleeps a second and then reports.
private struct Sleeper: Reducer {
  struct State: Equatable {}
  enum Action: Equatable, Sendable { case start, fired }
  @Dependency(\.continuousClock) var clock

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .start:
      return .run { [clock] send in
        try await clock.sleep(for: .seconds(1))
        await send(.fired)
      }
    case .fired:
      return .none
    }
  }
}

/// Effects 0..<count at the root and one in an `ifLet` child (number `count`) all wake at the
/// same instant; the action of each may cancel another (by `cancel(id:)`, or by dismissing the
/// child), following a seeded plan. Records every arrival, and any that came after its effect
/// was cancelled.
private struct Race: Reducer {
  enum Target: Equatable { case effect(Int), child }

  struct State: Equatable {
    let count: Int
    let plan: [Int: Target]
    var child: Sleeper.State?
    var arrived: [Int] = []
    var cancelled: Set<Int> = []
    var arrivedAfterCancellation: [Int] = []
  }

  enum Action: Equatable, Sendable {
    case begin
    case fired(Int)
    case child(Sleeper.Action)
  }

  @Dependency(\.continuousClock) var clock

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .begin:
        state.child = Sleeper.State()
        let sleeps = (0..<state.count).map { number in
          Effect<Action>.run { [clock] send in
            try await clock.sleep(for: .seconds(1))
            await send(.fired(number))
          }
          .cancellable(id: number)
        }
        return .merge(sleeps + [.send(.child(.start))])
      case let .fired(number):
        return arrive(number, &state)
      case .child(.fired):
        return arrive(state.count, &state)
      case .child:
        return .none
      }
    }
    .ifLet(\.child, action: Action.child) { Sleeper() }
  }

  private func arrive(_ number: Int, _ state: inout State) -> Effect<Action> {
    if state.cancelled.contains(number) { state.arrivedAfterCancellation.append(number) }
    state.arrived.append(number)
    switch state.plan[number] {
    case nil:
      return .none
    case let .effect(target):
      if !state.arrived.contains(target) { state.cancelled.insert(target) }
      return .cancel(id: target)
    case .child:
      if !state.arrived.contains(state.count) { state.cancelled.insert(state.count) }
      state.child = nil
      return .none
    }
  }
}

@MainActor
@Suite struct CancelledDeliveryTests {
  /// Same-instant wake-ups where one effect's action cancels another: the cancelled effect's
  /// action must never be processed, whether it was cancelled by id or by dismissing the child
  /// that owns it — even when it had already woken and was on its way to the store.
  @Test(arguments: 0..<4)
  func aCancelledEffectNeverDeliversItsAction(batch: Int) async {
    for round in 0..<50 {
      let seed = UInt64(batch * 50 + round)
      var random = SeededGenerator(seed: seed)
      let count = Int.random(in: 2...6, using: &random)
      var plan: [Int: Race.Target] = [:]
      for number in 0...count where Bool.random(using: &random) {
        let target = Int.random(in: 0...count, using: &random)
        guard target != number else { continue }
        plan[number] = target == count ? .child : .effect(target)
      }
      let clock = TestClock()
      let executor = EffectExecutor()
      let store = Store(
        initialState: Race.State(count: count, plan: plan), reducer: { Race() },
        withDependencies: { $0.continuousClock = clock }, effectExecutor: executor)
      let reported = Log<RuntimeWarning>()
      _ = withRuntimeWarningHandler({ reported.append($0) }) { store.send(.begin) }
      await executor.waitUntilSettled()
      #expect(clock.sleeperCount == count + 1, "seed \(seed)")
      await clock.advance(by: .seconds(1))

      let state = store.state
      #expect(state.arrivedAfterCancellation == [], "seed \(seed), plan \(plan)")
      #expect(
        Set(state.arrived).union(state.cancelled) == Set(0...count),
        "seed \(seed): every effect either delivered or was cancelled")
      #expect(reported.all.isEmpty, "seed \(seed): \(reported.all.map(\.message))")
    }
  }
}
