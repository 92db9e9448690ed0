@_spi(Testing) import Bulkhead
@testable import BulkheadDistribution
import Examples
import Testing

/// The latency `top` shows: the last seconds' actions of a boundary, wherever its child ran.
@Suite struct RecentLatencyTests {
  static func at(seconds: Double) -> MonotonicInstant { MonotonicInstant(nanoseconds: UInt64(seconds * 1e9)) }

  @Test func theWindowHoldsTheLastFiveSecondsAndDropsWhatIsOlder() {
    var recent = RecentLatency()
    recent.record(1_000, at: Self.at(seconds: 10.2))
    recent.record(2_000, at: Self.at(seconds: 12.9))
    #expect(recent.window(at: Self.at(seconds: 14.5)).count == 2)
    // Second 10 has left the window; second 12 is still in it.
    #expect(recent.window(at: Self.at(seconds: 15.0)).count == 1)
    #expect(recent.window(at: Self.at(seconds: 15.0)).maximum == 2_000)
    // Second 15 takes the slot of second 10, and a late value for second 10 goes nowhere.
    recent.record(3_000, at: Self.at(seconds: 15.1))
    recent.record(4_000, at: Self.at(seconds: 10.9))
    let window = recent.window(at: Self.at(seconds: 15.5))
    #expect(window.count == 2 && window.minimum == 2_000 && window.maximum == 3_000)
    #expect(recent.window(at: Self.at(seconds: 40)).count == 0)
  }

  @Test func histogramsAddUpAsIfEveryValueWereRecordedInOne() {
    var one = LogHistogram()
    var two = LogHistogram()
    var both = LogHistogram()
    for value in 1...500 as ClosedRange<UInt64> {
      one.record(value)
      both.record(value)
    }
    for value in 501...1_000 as ClosedRange<UInt64> {
      two.record(value * 3)
      both.record(value * 3)
    }
    one.add(two)
    #expect(one == both)
    one.add(LogHistogram())
    #expect(one == both)
  }

  /// After a move to the host, the boundary's actions are timed there, and the window shows
  /// only them: the round trips before the move count in the totals, not in what `top` shows.
  @MainActor
  @Test func aBoundaryMovedToTheHostIsTimedThereAndTheWindowShowsIt() async throws {
    let composition = try composition(app: "two-counters", placement: "counter1\n")
    defer { composition.shutdown() }
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    for _ in 0..<3 { store.send(.counter1(.incrementButtonTapped)) }
    _ = try composition.move("counter1", to: .host)
    for _ in 0..<4 { store.send(.counter1(.incrementButtonTapped)) }
    store.send(.counter2(.incrementButtonTapped))
    let timings = try #require(composition.timings(of: "counter1"))
    #expect(timings.remoteActions.count == 3)
    #expect(timings.hostActions.count == 4)
    #expect(timings.recent.window(at: .now).count == 4)
    let latency = try #require(composition.boundarySnapshots.first { $0.boundary == "counter1" }?.latency)
    // A Counter's run in the host against a round trip to a worker: the change shows at once.
    #expect(latency.p50 > 0 && latency.p99 >= latency.p50)
    #expect(UInt64(latency.p50) < timings.remoteActions.percentile(0.5))
    #expect(store.state.counter1.count == 7)
  }
}
