import Bulkhead
import BulkheadDistribution
import ExampleApps
import Examples
import Foundation
import Transport
import TransportTestSupport

/// The worker executable built beside the tests.
let workerExecutable: URL = {
  let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
  let beside = directory.appendingPathComponent("child-worker")
  if FileManager.default.fileExists(atPath: beside.path) { return beside }
  return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    .appendingPathComponent(".build/debug/child-worker")
}()

/// Starts the workers that `placement` names for the example app `app`.
func composition(
  app: String, placement: String, events: Events = Events(),
  restartPolicy: RestartPolicy = .standard
) throws -> Composition {
  guard let example = ExampleApp.named(app) else { throw DistributionError.unknownBoundary(app, known: []) }
  return try Composition(
    root: example.root(), placement: Placement(parsing: placement, file: "\(app).placement"),
    command: .executable(workerExecutable, app: app),
    restartPolicy: restartPolicy, onEvent: events.append)
}

/// The events a composition reported, and a way to wait for one without sleeping.
typealias Events = EventLog<BoundaryEvent>

/// Waits for `task`'s effects to finish, at most `deadline`; past it cancels them and waits
/// for the cancellation to end them. Says whether they finished on their own.
func finish(_ task: StoreTask, within deadline: Duration) async -> Bool {
  await withTaskGroup(of: Bool.self) { group in
    group.addTask {
      await task.finish()
      return !Task.isCancelled
    }
    group.addTask {
      try? await Task.sleep(for: deadline)
      return false
    }
    let finished = await group.next() ?? false
    // Cancels `finish()`, which cancels the effects it waits for.
    group.cancelAll()
    return finished
  }
}

/// Whether every worker `composition` started has exited.
func allExited(_ pids: some Sequence<Int32>) -> Bool {
  pids.allSatisfy { ProcessWatch.waitForExit(of: $0, milliseconds: 5_000) }
}


extension Timers {
  /// A random action the Timers app can take in `state`: add, remove, or tick a timer.
  static func randomAction(_ state: State, _ generator: inout SeededGenerator) -> Action {
    let ids = state.timers.ids
    switch Int.random(in: 0..<4, using: &generator) {
    case 0: return .addTimerTapped
    case 1 where !ids.isEmpty: return .removeTimerTapped(id: ids.randomElement(using: &generator)!)
    default:
      guard let id = ids.randomElement(using: &generator) else { return .addTimerTapped }
      return .timers(.element(id: id, action: .tick))
    }
  }
}
