@_spi(Testing) import Bulkhead
import Examples
import Testing
import TransportTestSupport

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
      let race = Race.State.random(using: &random)
      let (count, plan) = (race.count, race.plan)
      let clock = TestClock()
      let executor = EffectExecutor()
      let store = Store(
        initialState: race, reducer: { Race() },
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
