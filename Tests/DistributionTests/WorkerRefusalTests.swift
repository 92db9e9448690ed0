import Bulkhead
@testable import BulkheadDistribution
import ExampleApps
import Examples
import Foundation
import TestThreads
import Testing

/// A worker started for an app or a boundary its executable lacks refuses in its greeting,
/// and the host's error says what it was asked for and what it has.
@Suite(.onItsOwnThread) struct WorkerRefusalTests {
  private static let apps = ExampleApp.all.map(\.name).joined(separator: ", ")

  private func start(_ command: WorkerCommand, events: Events = Events()) throws -> Composition {
    try Composition(
      root: TwoCounters(), placement: Placement(parsing: "counter1\n", file: "two-counters.placement"),
      command: command, onEvent: events.append)
  }

  @Test(arguments: [false, true])
  func aWorkerStartedForAnAppItsExecutableLacksSaysWhichAppsItServes(spawned: Bool) throws {
    let events = Events()
    let forked = WorkerCommand.executable(workerExecutable, app: "two-countrs")
    // The words are the contract: they tell the user what to fix.
    #expect(throws: DistributionError.workerUnavailable(
      boundary: "counter1",
      reason: .refused(
        worker: "w0-0",
        explanation: """
          worker w0-0 was asked for app "two-countrs", which child-worker does not serve; it serves \
          \(Self.apps). Is the app's name in the WorkerCommand right?
          """))
    ) {
      _ = try start(spawned ? forked.spawningEachWorker() : forked, events: events)
    }
    #expect(!events.all.contains { if case .workerStarted = $0 { true } else { false } })
  }

  @Test func aWorkerStartedForAnAppWithoutTheBoundarySaysWhichBoundariesItHas() throws {
    #expect(throws: DistributionError.workerUnavailable(
      boundary: "counter1",
      reason: .refused(
        worker: "w0-0",
        explanation: """
          worker w0-0 was asked for boundary "counter1" of app "timers", which has no such boundary \
          (its boundaries: timers); child-worker serves the apps \(Self.apps). Is the app's name in \
          the WorkerCommand right?
          """))
    ) {
      _ = try start(.executable(workerExecutable, app: "timers"))
    }
  }

  @Test func aWorkerOfOneRootWithoutTheBoundarySaysWhichBoundariesItHas() throws {
    #expect {
      _ = try start(.loopback { Timers() })
    } throws: { error in
      guard case let .workerUnavailable("counter1", .refused("w0-0", explanation))? = error as? DistributionError
      else { return false }
      // The words are the contract: they name what was asked for and what the app has.
      return explanation.hasPrefix(
        "worker w0-0 was asked for boundary \"counter1\", which its app does not have (its boundaries: timers)")
    }
  }
}
