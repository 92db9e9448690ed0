import Bulkhead
import BulkheadDistribution
import Examples
import Foundation
import Synchronization
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
final class Events: Sendable {
  private struct Waiter {
    let predicate: @Sendable (BoundaryEvent) -> Bool
    let continuation: CheckedContinuation<BoundaryEvent?, Never>
  }

  private struct State {
    var events: [BoundaryEvent] = []
    var waiters: [Int: Waiter] = [:]
    var nextWaiter = 0
  }

  private let state = Mutex(State())
  private let react: @Sendable (BoundaryEvent) -> Void

  /// `react` runs on each event as it is reported, on the reporting thread, before waiters
  /// hear of it: for a test that plays a fault at an exact point.
  init(react: @escaping @Sendable (BoundaryEvent) -> Void = { _ in }) {
    self.react = react
  }

  var all: [BoundaryEvent] { state.withLock { $0.events } }

  @Sendable func append(_ event: BoundaryEvent) {
    react(event)
    let ready = state.withLock { state in
      state.events.append(event)
      let ready = state.waiters.filter { $0.value.predicate(event) }
      for key in ready.keys { state.waiters[key] = nil }
      return ready.values.map(\.continuation)
    }
    for continuation in ready { continuation.resume(returning: event) }
  }

  /// The first event, past or future, for which `predicate` holds; nil if none comes within
  /// `deadline`, so that a missing event fails the test instead of hanging it.
  func first(
    within deadline: Duration = .seconds(10),
    where predicate: @escaping @Sendable (BoundaryEvent) -> Bool
  ) async -> BoundaryEvent? {
    await withCheckedContinuation { continuation in
      let waiter = state.withLock { state -> Int? in
        if let past = state.events.first(where: predicate) {
          continuation.resume(returning: past)
          return nil
        }
        state.nextWaiter += 1
        state.waiters[state.nextWaiter] = Waiter(predicate: predicate, continuation: continuation)
        return state.nextWaiter
      }
      guard let waiter else { return }
      Task {
        try? await Task.sleep(for: deadline)
        state.withLock { $0.waiters.removeValue(forKey: waiter) }?.continuation.resume(returning: nil)
      }
    }
  }
}

extension Events {
  /// The `count`th event, past or future, for which `predicate` holds; nil if it does not come
  /// within `deadline`.
  func nth(
    _ count: Int, within deadline: Duration = .seconds(10),
    where predicate: @escaping @Sendable (BoundaryEvent) -> Bool
  ) async -> BoundaryEvent? {
    // `first` asks the predicate once about each event, in order.
    let seen = Mutex(0)
    return await first(within: deadline) { event in
      guard predicate(event) else { return false }
      return seen.withLock { seen in
        seen += 1
        return seen == count
      }
    }
  }
}

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
