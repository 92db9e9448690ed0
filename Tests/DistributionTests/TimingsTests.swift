import Bulkhead
import BulkheadDistribution
@testable import BulkheadTools
import Examples
import Foundation
import Synchronization
import Testing

/// The histogram behind the timings, and a real composition's timings of its crossings.
@MainActor
@Suite struct TimingsTests {
  @Test nonisolated func percentilesOfAHistogramAreWithinASixteenthOfTheTrueValue() {
    var histogram = LogHistogram()
    #expect(histogram.percentile(0.5) == 0 && histogram.count == 0)
    for value in 1...1_000 as ClosedRange<UInt64> { histogram.record(value) }
    #expect(histogram.count == 1_000 && histogram.minimum == 1 && histogram.maximum == 1_000)
    #expect(histogram.mean == 500)
    for (fraction, exact) in [(0.5, 500.0), (0.9, 900.0), (0.99, 990.0), (0.01, 10.0)] {
      let estimate = Double(histogram.percentile(fraction))
      #expect(abs(estimate - exact) <= exact / 16, "p\(fraction * 100): \(estimate), not about \(exact)")
    }
    #expect(histogram.percentile(1) == 1_000)
    #expect(histogram.percentile(0) == 1)
  }

  @Test nonisolated func percentilesHoldOverEveryMagnitude() {
    var generator = SystemRandomNumberGenerator()
    var values: [UInt64] = []
    var histogram = LogHistogram()
    for _ in 0..<5_000 {
      let value = UInt64.random(in: 0...UInt64.max >> UInt64.random(in: 0...63, using: &generator), using: &generator)
      values.append(value)
      histogram.record(value)
    }
    values.sort()
    for fraction in [0.5, 0.9, 0.99] {
      let exact = values[Int((fraction * Double(values.count)).rounded(.up)) - 1]
      let estimate = histogram.percentile(fraction)
      let error = estimate > exact ? estimate - exact : exact - estimate
      #expect(error <= exact / 16, "p\(fraction * 100): \(estimate), not about \(exact)")
    }
    #expect(histogram.maximum == values.last && histogram.minimum == values.first)
  }

  @Test nonisolated func oneValueIsEveryPercentile() {
    var histogram = LogHistogram()
    histogram.record(123_456_789)
    #expect(histogram.percentile(0.5) == 123_456_789 && histogram.percentile(0.99) == 123_456_789)
  }

  @Test func aCompositionTimesEachRemoteActionAndEffectActionAndCountsRestarts() async throws {
    let trips = Trips()
    let events = Events()
    let composition = try Composition(
      root: Payload(), placement: Placement(parsing: "store\n", file: "payload.placement"),
      command: .executable(workerExecutable, app: "payload"), instrument: trips, onEvent: events.append)
    defer { composition.shutdown() }
    let store = Store(initialState: Payload.State()) { composition.compose(Payload()) }
    for _ in 0..<5 { store.send(.store(.bump)) }
    let pid = try #require(composition.processes.first?.pids.first)
    var timings = try #require(composition.timings(of: "store"))
    let statistics = try #require(composition.statistics(of: "store"))
    #expect(timings.remoteActions.count == 5 && timings.workerHandling.count == 5)
    #expect(trips.remote.count == 5)
    for trip in trips.remote {
      #expect(trip.boundary == "store" && trip.worker == 0 && trip.pid == pid)
      #expect(trip.start < trip.end)
      // The worker's own time is part of the round trip, and not nothing.
      #expect(trip.workerNanoseconds > 0 && trip.workerNanoseconds < trip.nanoseconds)
    }
    #expect(timings.remoteActions.maximum == trips.remote.map(\.nanoseconds).max())
    #expect(timings.bytesSent == statistics.bytesSent && timings.bytesReceived == statistics.bytesReceived)
    #expect(timings.workerPatchBytes.count == 5 && timings.hostPatchBytes.count == 1)

    await store.send(.store(.stream(count: 3))).finish()
    timings = try #require(composition.timings(of: "store"))
    #expect(timings.effectActions.count == 3 && trips.effect.count == 3)
    #expect(timings.precomputedEffectActions == composition.statistics(of: "store")?.precomputedActions)
    #expect(trips.effect.allSatisfy { $0.pid == pid && $0.arrived <= $0.processed && $0.bytes > 0 })

    composition.killWorker(of: "store")
    _ = await events.first { $0 == .workerExited(boundary: "store", pid: pid) }
    store.send(.store(.bump))
    timings = try #require(composition.timings(of: "store"))
    #expect(timings.restarts == 1 && timings.stalls == 0 && timings.effectsLost == 0)
    #expect(composition.timingsTable?.contains("store") == true)
    #expect(composition.timings(of: "nowhere") == nil)
  }

  @Test func aCompositionCanRecordNoTimings() throws {
    let composition = try Composition(
      root: Payload(), placement: Placement(parsing: "store\n", file: "payload.placement"),
      command: .executable(workerExecutable, app: "payload"), recordsTimings: false)
    defer { composition.shutdown() }
    Store(initialState: Payload.State()) { composition.compose(Payload()) }.send(.store(.bump))
    #expect(composition.timings(of: "store") == nil && composition.statistics(of: "store")?.actions == 1)
  }
}

/// An instrument that keeps what it hears.
private final class Trips: BoundaryInstrument {
  private let state = Mutex<(remote: [RemoteActionTrip], effect: [EffectActionTrip])>(([], []))

  var remote: [RemoteActionTrip] { state.withLock { $0.remote } }
  var effect: [EffectActionTrip] { state.withLock { $0.effect } }

  func remoteActionAnswered(_ trip: RemoteActionTrip) { state.withLock { $0.remote.append(trip) } }
  func effectActionProcessed(_ action: EffectActionTrip) { state.withLock { $0.effect.append(action) } }
}
