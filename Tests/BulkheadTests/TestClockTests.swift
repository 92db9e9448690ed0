import Bulkhead
import BulkheadTesting
import Testing

/// A timer that ticks every second with the clock's time, until stopped.
private struct Metronome: Reducer {
  struct State: Equatable { var ticks: [Int] = [] }
  enum Action: Equatable, Sendable { case start, startTimer, stop, tick(Int), pair(String) }
  enum CancelID { case timer }
  @Dependency(\.continuousClock) var clock

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .start:
      return .run { [clock] send in
        for second in 1... {
          try await clock.sleep(for: .seconds(1))
          await send(.tick(second))
        }
      }
      .cancellable(id: CancelID.timer)
    case .startTimer:
      return .run { [clock] send in
        for await second in clock.timer(interval: .seconds(1)) { await send(.tick(second)) }
      }
      .cancellable(id: CancelID.timer, cancelInFlight: true)
    case .stop:
      return .cancel(id: CancelID.timer)
    case let .tick(elapsed):
      state.ticks.append(elapsed)
      return .none
    case let .pair(name) where name.hasSuffix("!"):
      return .none
    case let .pair(name):
      return .run { [clock] send in
        try await clock.sleep(for: .seconds(1))
        await send(.pair(name + "!"))
      }
    }
  }
}

@MainActor
@Suite struct TestClockTests {
  let clock = TestClock()

  fileprivate func makeStore() -> TestStore<Metronome.State, Metronome.Action> {
    TestStore(initialState: Metronome.State()) { Metronome() } withDependencies: { [clock] in
      $0.continuousClock = clock
    }
  }

  @Test func advancingTwoSecondsTicksAOneSecondTimerTwice() async {
    let store = makeStore()
    await store.send(.start)
    await clock.advance(by: .seconds(2))
    await store.receive(.tick(1)) { $0.ticks = [1] }
    await store.receive(.tick(2)) { $0.ticks.append(2) }
    await clock.advance(by: .milliseconds(999))
    await store.send(.stop)
    #expect(clock.now == TestClock.Instant(offset: .milliseconds(2999)))
  }

  @Test func aClockTimerTicksOncePerIntervalAndEndsWhenCancelled() async {
    let store = makeStore()
    await store.send(.startTimer)
    await clock.advance(by: .seconds(3))
    await store.receive(.tick(1)) { $0.ticks = [1] }
    await store.receive(.tick(2)) { $0.ticks.append(2) }
    await store.receive(.tick(3)) { $0.ticks.append(3) }
    // Started again, it counts from one: the first timer is cancelled in flight.
    await clock.advance(by: .milliseconds(500))
    await store.send(.startTimer)
    await clock.advance(by: .seconds(1))
    await store.receive(.tick(1)) { $0.ticks.append(1) }
    await store.send(.stop)
    #expect(clock.sleeperCount == 0)
  }

  @Test func sleepsDueAtTheSameInstantWakeInTheOrderTheyBegan() async {
    let store = makeStore()
    await store.send(.pair("a"))
    await store.send(.pair("b"))
    await clock.advance(by: .seconds(1))
    await store.receive(.pair("a!"))
    await store.receive(.pair("b!"))
  }

  @Test func runAdvancesUntilNoSleepIsLeft() async {
    let store = makeStore()
    store.exhaustivity = .off
    await store.send(.pair("a"))
    await store.send(.start)
    await clock.advance(by: .milliseconds(500))
    await store.send(.stop)
    #expect(await clock.run())
    await store.receive(.pair("a!"))
    #expect(clock.now == TestClock.Instant(offset: .seconds(1)))
  }

  @Test func runGivesUpOnATimerThatNeverStops() async {
    let store = makeStore()
    store.exhaustivity = .off
    await store.send(.start)
    #expect(await clock.run(timeout: .milliseconds(50)) == false)
    await store.send(.stop)
  }
}
