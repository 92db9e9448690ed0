import Bulkhead
import BulkheadDistribution
import BulkheadTesting
import ExampleScripts
import Examples
import Foundation
import Testing

/// The errands app's `TestStore` scripts with the boundaries its placement file names in
/// workers: the same assertions as in one process (`ExamplesTests/ErrandsTests.swift`).
@MainActor
@Suite(.serialized) struct RemoteErrandsTests {
  @Test func theAppsScriptPassesWithItsBoundariesInWorkers() async throws {
    let clock = TestClock()
    let composition = try composition(app: "errands", placement: ErrandsPlacement.text())
    defer { composition.shutdown() }
    let store = TestStore(initialState: Errands.State()) {
      composition.compose(Errands())
    } withDependencies: {
      $0.continuousClock = clock
    }
    await ExampleScripts.errands(store, clock: clock)
    // Every placed boundary ran actions in its workers.
    for process in composition.processes {
      #expect(composition.statistics(of: process.boundary)?.actions ?? 0 > 0, "\(process.boundary)")
    }
    // The list's alert and its detail sheet each retired the destination's worker; the stop's
    // screen and the trip's were each dropped by the pool worker that held it.
    if composition.processes.contains(where: { $0.boundary == "list.destination" }) {
      #expect(composition.statistics(of: "list.destination")?.workersRetired == 2)
    }
    if composition.processes.contains(where: { $0.boundary == "trips.path" }) {
      #expect(composition.statistics(of: "trips.path")?.slotsDropped == 2)
    }
  }

  @Test func theTimersAndSavesInWorkersEndWithTheirFeatures() async throws {
    let clock = TestClock()
    let composition = try composition(app: "errands", placement: ErrandsPlacement.text())
    defer { composition.shutdown() }
    let store = TestStore(initialState: Errands.State()) {
      composition.compose(Errands())
    } withDependencies: {
      $0.continuousClock = clock
    }
    await ExampleScripts.errandsTimers(store, clock: clock)
  }
}

/// The errands app's placement, read from `placements/errands.placement`: the tests take it
/// as data, so that a deeper placement file deepens them with no change here.
enum ErrandsPlacement {
  static let file = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("placements/errands.placement")

  /// The file's text.
  static func text() throws -> String { try String(contentsOf: file, encoding: .utf8) }
}
