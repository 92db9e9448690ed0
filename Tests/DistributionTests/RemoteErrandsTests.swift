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
    let store = Self.store(of: composition, clock: clock)
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
    await ExampleScripts.errandsTimers(Self.store(of: composition, clock: clock), clock: clock)
  }

  /// A test store of the errands app over `composition`, on `clock`.
  private static func store(of composition: Composition, clock: TestClock) -> TestStore<Errands.State, Errands.Action> {
    TestStore(initialState: Errands.State()) {
      composition.compose(Errands())
    } withDependencies: {
      $0.continuousClock = clock
    }
  }

  /// The host's state is the truth, the worker's copy a cache: a second store on the same
  /// composition, whose stack has handed out no id yet, brings the worker's copy of the trips
  /// (which handed out #0, then popped it) up to date before its first push.
  @Test func aNewStoreBringsTheWorkersStackUpToDate() async throws {
    let composition = try composition(app: "errands", placement: "trips\n")
    defer { composition.shutdown() }
    let clock = TestClock()
    func store() -> Store<Errands.State, Errands.Action> {
      Store(initialState: Errands.State(), reducer: { composition.compose(Errands()) }) { $0.continuousClock = clock }
    }
    let first = store()
    let tasks = [first.send(.trips(.view(.planTripTapped))), first.send(.trips(.path(.popFrom(id: 0))))]
    #expect(first.state.trips.path.nextID == 1)
    let second = store()
    let task = second.send(.trips(.view(.planTripTapped)))
    #expect(second.state.trips.path.ids == [0])
    #expect(second.state.trips.path.nextID == 1)
    for task in tasks + [task] { task.cancel() }
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
