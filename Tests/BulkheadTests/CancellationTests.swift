import Bulkhead
import BulkheadTesting
import Testing

/// An effect that sends `action` every second of `clock`, until cancelled.
private func ticking<Action: Sendable>(on clock: any Clock<Duration>, sending action: Action) -> Effect<Action> {
  .run { send in
    while true {
      try await clock.sleep(for: .seconds(1))
      await send(action)
    }
  }
}

/// A child with a ticking effect under a cancel id that its parent also uses for its own.
private struct Ticker: Reducer {
  struct State: Equatable, Identifiable {
    var id: Int
    var ticks = 0
  }
  enum Action: Equatable, Sendable { case start, stop, tick }
  enum CancelID { case ticking }
  @Dependency(\.continuousClock) var clock

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .start:
      return ticking(on: clock, sending: .tick)
        .cancellable(id: CancelID.ticking, cancelInFlight: true)
    case .stop:
      return .cancel(id: CancelID.ticking)
    case .tick:
      state.ticks += 1
      return .none
    }
  }
}

private struct Parent: Reducer {
  struct State: Equatable {
    var child: Ticker.State?
    var rows: IdentifiedArrayOf<Ticker.State> = []
    var ticks = 0
  }
  enum Action: Equatable, Sendable {
    case child(Ticker.Action)
    case rows(IdentifiedActionOf<Ticker>)
    case start, stopAll, tick
    case present(Int), dismiss, removeRow(Int)
  }
  @Dependency(\.continuousClock) var clock

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .start:
        return ticking(on: clock, sending: .tick).cancellable(id: Ticker.CancelID.ticking)
      case .stopAll:
        return .cancel(id: Ticker.CancelID.ticking)
      case .tick:
        state.ticks += 1
        return .none
      case let .present(id):
        state.child = Ticker.State(id: id)
        return .none
      case .dismiss:
        state.child = nil
        return .none
      case let .removeRow(id):
        state.rows.remove(id: id)
        return .none
      case .child, .rows:
        return .none
      }
    }
    .ifLet(\.child, action: Action.child) { Ticker() }
    .forEach(\.rows, action: Action.rows) { Ticker() }
  }
}

/// Groups of tickers: a `forEach` in each element of a `forEach`, whose inner elements share
/// ids across groups.
private struct Groups: Reducer {
  struct Group: Equatable, Identifiable {
    var id: Int
    var rows: IdentifiedArrayOf<Ticker.State> = [Ticker.State(id: 1)]
  }
  enum GroupAction: Equatable, Sendable { case rows(IdentifiedActionOf<Ticker>) }
  struct State: Equatable { var groups: IdentifiedArrayOf<Group> = [Group(id: 1), Group(id: 2)] }
  enum Action: Equatable, Sendable {
    case groups(IdentifiedAction<Int, GroupAction>)
    case removeGroup(Int)
  }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      if case let .removeGroup(id) = action { state.groups.remove(id: id) }
      return .none
    }
    .forEach(\.groups, action: Action.groups) {
      EmptyReducer<Group, GroupAction>()
        .forEach(\.rows, action: GroupAction.rows) { Ticker() }
    }
  }
}

@MainActor
@Suite struct CancellationTests {
  let clock = TestClock()

  fileprivate func makeStore() -> TestStore<Parent.State, Parent.Action> {
    TestStore(
      initialState: Parent.State(rows: [Ticker.State(id: 1), Ticker.State(id: 2)])
    ) {
      Parent()
    } withDependencies: { [clock] in
      $0.continuousClock = clock
    }
  }

  @Test func aParentCancelsTheEffectsOfItsDescendants() async {
    let store = makeStore()
    await store.send(.present(7)) { $0.child = Ticker.State(id: 7) }
    await store.send(.child(.start))
    await store.send(.rows(.element(id: 1, action: .start)))
    await store.send(.stopAll)
    await store.finish()
  }

  @Test func siblingsCannotCancelEachOther() async {
    let store = makeStore()
    await store.send(.rows(.element(id: 1, action: .start)))
    await store.send(.rows(.element(id: 2, action: .start)))
    await store.send(.rows(.element(id: 2, action: .stop)))
    await clock.advance(by: .seconds(1))
    await store.receive(.rows(.element(id: 1, action: .tick))) { $0.rows[id: 1]?.ticks = 1 }
    await store.send(.rows(.element(id: 1, action: .stop)))
    await store.finish()
  }

  @Test func aChildCannotCancelItsParentsEffects() async {
    let store = makeStore()
    await store.send(.start)
    await store.send(.present(7)) { $0.child = Ticker.State(id: 7) }
    await store.send(.child(.stop))
    await clock.advance(by: .seconds(1))
    await store.receive(.tick) { $0.ticks = 1 }
    await store.send(.stopAll)
    await store.finish()
  }

  @Test func dismissingAChildCancelsItsEffectsInTheSamePass() async {
    let store = makeStore()
    await store.send(.present(7)) { $0.child = Ticker.State(id: 7) }
    await store.send(.child(.start))
    await store.send(.dismiss) { $0.child = nil }
    await store.finish()
  }

  @Test func replacingAChildByAnotherIdentityCancelsTheOldOnesEffects() async {
    let store = makeStore()
    await store.send(.present(7)) { $0.child = Ticker.State(id: 7) }
    await store.send(.child(.start))
    await store.send(.present(8)) { $0.child = Ticker.State(id: 8) }
    await store.finish()
  }

  @Test func removingAnElementCancelsItsEffects() async {
    let store = makeStore()
    await store.send(.rows(.element(id: 1, action: .start)))
    await store.send(.rows(.element(id: 2, action: .start)))
    await store.send(.removeRow(1)) { $0.rows.remove(id: 1) }
    await clock.advance(by: .seconds(1))
    await store.receive(.rows(.element(id: 2, action: .tick))) { $0.rows[id: 2]?.ticks = 1 }
    await store.send(.removeRow(2)) { $0.rows.remove(id: 2) }
    await store.finish()
  }

  @Test func cancelInFlightRestartsTheEffect() async {
    let store = makeStore()
    await store.send(.rows(.element(id: 1, action: .start)))
    await clock.advance(by: .milliseconds(500))
    await store.send(.rows(.element(id: 1, action: .start)))
    await clock.advance(by: .milliseconds(500))
    await store.send(.rows(.element(id: 1, action: .stop)))
    await store.finish()
  }

  @Test func twoStoresNeverInterfere() async {
    let first = makeStore()
    let second = makeStore()
    await first.send(.start)
    await second.send(.start)
    await first.send(.stopAll)
    await first.finish()
    await clock.advance(by: .seconds(1))
    await second.receive(.tick) { $0.ticks = 1 }
    await second.send(.stopAll)
    await second.finish()
  }

  @Test func nestedElementsWithTheSameIdAreDistinctPlaces() async {
    let store = TestStore(initialState: Groups.State()) {
      Groups()
    } withDependencies: { [clock] in
      $0.continuousClock = clock
    }
    func row(inGroup group: Int, _ action: Ticker.Action) -> Groups.Action {
      .groups(.element(id: group, action: .rows(.element(id: 1, action: action))))
    }
    await store.send(row(inGroup: 1, .start))
    await store.send(row(inGroup: 2, .start))
    // Stops only the ticker of group 1: the other's path differs in its outer step alone.
    await store.send(row(inGroup: 1, .stop))
    await clock.advance(by: .seconds(1))
    await store.receive(row(inGroup: 2, .tick)) { $0.groups[id: 2]?.rows[id: 1]?.ticks = 1 }
    // Removing the outer element cancels the effects of the elements inside it.
    await store.send(.removeGroup(2)) { $0.groups.remove(id: 2) }
    await store.finish()
  }
}
