import Foundation
import Bulkhead
import BulkheadTesting
import Testing

/// A feature whose effect answers after a second of the clock, reading the date dependency
/// both in the reducer and in the effect.
private struct Delayed: Reducer {
  struct State: Equatable {
    var count = 0
    var stamps: [Date] = []
  }
  enum Action: Equatable, Sendable {
    case start, nothing, stamp
    case response(Int)
    case stamped(Date)
  }
  @Dependency(\.continuousClock) var clock
  @Dependency(\.date) var date

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .start:
      return .run { [clock] send in
        try await clock.sleep(for: .seconds(1))
        await send(.response(42))
      }
    case .nothing:
      return .none
    case .stamp:
      state.stamps.append(date.now)
      return .run { [date] send in await send(.stamped(date.now)) }
    case let .response(value):
      state.count = value
      return .none
    case let .stamped(date):
      state.stamps.append(date)
      return .none
    }
  }
}

@MainActor
@Suite struct TestStoreSkippingTests {
  let clock = TestClock()

  fileprivate func makeStore() -> TestStore<Delayed.State, Delayed.Action> {
    TestStore(initialState: Delayed.State()) { Delayed() } withDependencies: { [clock] in
      $0.continuousClock = clock
    }
  }

  @Test func anAssertionClosureThatChangesNothingFailsAndSaysToOmitIt() async {
    let store = makeStore()
    await expectFailure(containing: ["Expected the state to change, but it did not", "omit the closure"]) {
      await store.send(.nothing) { $0.count = 0 }
    }
    await store.send(.nothing)
  }

  @Test func skippingInFlightEffectsStopsWaitingForThemWithoutCancellingThem() async {
    let store = makeStore()
    await store.send(.start)
    await store.skipInFlightEffects()
    await store.finish()
    await clock.advance(by: .seconds(1))
    await store.receive(.response(42)) { $0.count = 42 }
  }

  @Test func strictSkippingFailsWhenThereIsNothingToSkip() async {
    let store = makeStore()
    await expectFailure(containing: ["There were no received actions to skip"]) {
      await store.skipReceivedActions()
    }
    await expectFailure(containing: ["There were no in-flight effects to skip"]) {
      await store.skipInFlightEffects()
    }
    await store.skipReceivedActions(strict: false)
    await store.skipInFlightEffects(strict: false)
  }

  @Test func receivesByPredicate() async {
    let store = makeStore()
    await store.send(.start)
    await clock.advance(by: .seconds(1))
    await store.receive({ if case .response = $0 { true } else { false } }) { $0.count = 42 }
  }

  @Test func aPredicateThatMatchesNothingFails() async {
    let store = makeStore()
    await store.send(.start)
    await clock.advance(by: .seconds(1))
    await expectFailure(containing: ["Received unexpected action", "an action matching the predicate"]) {
      await store.receive({ if case .stamped = $0 { true } else { false } }) { $0.count = 42 }
    }
  }

  @Test func changedDependenciesApplyToLaterStepsAndTheirEffects() async {
    let store = makeStore()
    let first = Date(timeIntervalSince1970: 1)
    let second = Date(timeIntervalSince1970: 2)
    store.dependencies.date = .constant(first)
    await store.send(.stamp) { $0.stamps = [first] }
    await store.receive(.stamped(first)) { $0.stamps.append(first) }
    store.dependencies.date = .constant(second)
    await store.send(.stamp) { $0.stamps.append(second) }
    await store.receive(.stamped(second)) { $0.stamps.append(second) }
  }
}
