@_spi(Testing) import Bulkhead
import BulkheadDistribution
import Examples
import Foundation
import Synchronization
import Testing
import TransportTestSupport

/// Random sessions of the errands app, from fixed seeds, in one process and with the
/// boundaries its placement file names in workers: after every step the root states are
/// equal, and so are the actions the root reducer saw and the runtime warnings raised. The
/// fake server answers on test clocks, out of order (its latencies differ by question) and
/// sometimes refuses; timers tick, sheets and screens come and go, rows are saved, retried
/// and deleted while their saves are in flight.
///
/// Effects in different workers that wake at the same instant may reach the host in either
/// order (docs/differences-from-tca.md), so every action is sent at an instant of its own
/// modulo 10 ms (step `s` at `s + 1` µs past a 10 ms mark), while every duration in the app
/// is a multiple of 10 ms: the sleeps of different actions' effects never end together.
@MainActor
@Suite(.serialized) struct ErrandsDifferentialTests {
  static let seeds: [UInt64] = Array(1...8)
  static let stepsPerSeed = 1_250
  /// A step that takes longer than this is a hang: the watchdog reports it, and ends the
  /// test process if it lasts twice as long. Generous: in a full parallel run on two cores, a
  /// seed's first step (its stack screen's inner worker spawned while every other test
  /// spawns its own, and the main actor shared by them all) was seen to pass 30 s.
  static let stepDeadline = Duration.seconds(120)

  @Test func randomSessionsAgreeStepByStepInOneProcessAndInWorkers() async throws {
    let composition = try composition(app: "errands", placement: ErrandsPlacement.text())
    defer { composition.shutdown() }
    let watchdog = Watchdog(deadline: Self.stepDeadline)
    defer { watchdog.stop() }
    var tally = Tally()
    for seed in Self.seeds {
      // The first step that differs is the failure; what follows it would say nothing more.
      guard try await compare(seed: seed, composition: composition, watchdog: watchdog, tally: &tally) else { return }
    }
    #expect(watchdog.hangs.isEmpty, "steps that hung: \(watchdog.hangs)")
    #expect(tally.steps >= 10_000)
    // What the sessions went through, so that a generator that drifts into doing nothing fails.
    #expect(tally.refusals > 100, "\(tally)")
    #expect(tally.answersOutOfOrder > 50, "\(tally)")
    #expect(tally.ticks > 100, "\(tally)")
    #expect(tally.dismissals > 100, "\(tally)")
    // Every placed boundary worked.
    for process in composition.processes {
      #expect(composition.statistics(of: process.boundary)?.actions ?? 0 > 100, "\(process.boundary)")
    }
  }

  /// Runs one seed's session in both stores; false after the first step that differs.
  private func compare(
    seed: UInt64, composition: Composition, watchdog: Watchdog, tally: inout Tally
  ) async throws -> Bool {
    let local = Side { Errands() }
    let remote = Side { composition.compose(Errands()) }
    defer {
      local.end()
      remote.end()
    }
    var generator = SeededGenerator(seed: seed)
    /// Microseconds since the clocks' start.
    var now = 0
    for step in 0..<Self.stepsPerSeed {
      let move = ErrandsSession.move(local.store.state, &generator)
      watchdog.arm("errands seed \(seed), step \(step): \(move)")
      switch move {
      case let .advance(milliseconds):
        now += milliseconds * 1_000
        await local.advance(to: .microseconds(now))
        await remote.advance(to: .microseconds(now))
      case let .send(action):
        // At an instant of its own (see the suite's comment).
        now = (now / 10_000 + 1) * 10_000 + step + 1
        await local.advance(to: .microseconds(now))
        await remote.advance(to: .microseconds(now))
        await local.send(action)
        await remote.send(action)
      }
      watchdog.disarm()
      let localActions = local.log.takeNew()
      let remoteActions = remote.log.takeNew()
      guard local.store.state == remote.store.state else {
        Issue.record("seed \(seed), step \(step), after \(move): \(remote.store.state) in workers, \(local.store.state) in one process")
        return false
      }
      guard localActions == remoteActions else {
        Issue.record(
          """
          seed \(seed), step \(step), after \(move): the root saw \(remoteActions) in workers, \
          \(localActions) in one process
          """)
        return false
      }
      guard local.warnings.all.count == remote.warnings.all.count else {
        Issue.record("seed \(seed), step \(step), after \(move): warnings \(remote.warnings.all) in workers, \(local.warnings.all) in one process")
        return false
      }
      tally.count(localActions)
      tally.steps += 1
    }
    return true
  }
}

/// One store of the comparison, with its own test clock and effect executor, logging every
/// action its root reducer runs.
@MainActor
private final class Side {
  let clock = TestClock()
  let executor = EffectExecutor()
  let log = NewEntries<Errands.Action>()
  let warnings = Log<RuntimeWarning>()
  let store: Store<Errands.State, Errands.Action>
  private var tasks: [StoreTask] = []

  init<R: Reducer<Errands.State, Errands.Action>>(_ root: () -> R) {
    let root = root()
    store = Store(
      initialState: Errands.State(),
      reducer: { [log] in
        Reduce<Errands.State, Errands.Action> { _, action in
          log.append(action)
          return .none
        }
        root
      },
      withDependencies: { [clock] in $0.continuousClock = clock }, effectExecutor: executor)
  }

  /// Sends `action` and waits until every effect, here and in workers, has finished or waits
  /// on the clock.
  func send(_ action: Errands.Action) async {
    withRuntimeWarningHandler(warnings.append) { tasks.append(store.send(action)) }
    await settle()
    tasks.removeAll { $0.isFinished }
  }

  /// Moves the clock to `instant` past its start, waking each sleep on the way in turn.
  func advance(to instant: Duration) async {
    await withRuntimeWarningHandler(warnings.append) {
      await clock.advance(to: TestClock.Instant(offset: instant))
    }
    await settle()
  }

  private func settle() async {
    await withRuntimeWarningHandler(warnings.append) { await executor.waitUntilSettled() }
  }

  /// Cancels every effect still running (timers, sleeps on the clock).
  func end() {
    for task in tasks { task.cancel() }
  }
}

/// Entries appended from any thread, taken in batches: each step compares only its own.
private final class NewEntries<Entry: Sendable>: Sendable {
  private let entries = Mutex<[Entry]>([])
  func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }
  /// The entries appended since the last call.
  func takeNew() -> [Entry] {
    entries.withLock { entries in
      defer { entries.removeAll(keepingCapacity: true) }
      return entries
    }
  }
}

/// What the sessions went through.
private struct Tally: CustomStringConvertible {
  var steps = 0
  var refusals = 0
  var answersOutOfOrder = 0
  var ticks = 0
  var dismissals = 0
  /// The rows whose saves are in flight, in the order they were asked.
  private var asked: [Int] = []

  mutating func count(_ actions: [Errands.Action]) {
    for action in actions {
      switch action {
      case let .list(.rows(.element(id, ._internal(.saveStarted)))):
        asked.append(id)
      case let .list(.rows(.element(id, ._internal(.saved)))), let .list(.rows(.element(id, ._internal(.saveFailed)))):
        if asked.first != id { answersOutOfOrder += 1 }
        asked.removeAll { $0 == id }
      case let .list(.rows(.element(id, .view))), let .list(.view(.deleteTapped(id))):
        // An edit cancels the row's save in flight; so does deleting the row.
        asked.removeAll { $0 == id }
      default:
        break
      }
      switch action {
      case .list(.rows(.element(_, ._internal(.saveFailed)))), .list(._internal(.createFailed)),
        .list(._internal(.markDoneFailed)), .list(.destination(.presented(.detail(._internal(.saveFailed))))),
        .trips(.path(.element(_, .trip(._internal(.routeFailed))))), .sync(._internal(.syncFailed)):
        refusals += 1
      case .trips(.path(.element(_, .trip(.stopwatch(.ticked))))), .sync(._internal(.timerTicked)):
        ticks += 1
      case .list(.destination(.dismiss)), .trips(.path(.popFrom)):
        dismissals += 1
      default:
        break
      }
    }
  }

  var description: String {
    "\(steps) steps, \(refusals) refusals, \(answersOutOfOrder) answers out of order, \(ticks) ticks, \(dismissals) dismissals"
  }
}

/// The random moves of a session: mostly what the app's screens offer in the state it is
/// in, and the passing of time.
enum ErrandsSession {
  enum Move: CustomStringConvertible {
    case send(Errands.Action)
    /// Moves the clocks by this many milliseconds.
    case advance(Int)

    var description: String {
      switch self {
      case let .send(action): "send \(action)"
      case let .advance(milliseconds): "advance \(milliseconds) ms"
      }
    }
  }

  static let words = ["Milk", "Bread", "Stamps", "Eggs", "Tea", "Soap", "Oat milk", "Rice"]

  static func move(_ state: Errands.State, _ generator: inout SeededGenerator) -> Move {
    let roll = Int.random(in: 0..<100, using: &generator)
    if roll < 30 { return .advance(10 * Int.random(in: 1...70, using: &generator)) }
    // What is on screen takes most actions: a presented destination, the top of the stack.
    if let destination = state.list.destination, roll < 75 {
      return .send(.list(.destination(destinationAction(destination, &generator))))
    }
    if let top = state.trips.path.ids.last, let screen = state.trips.path[id: top], roll < 60 {
      return .send(.trips(.path(screenAction(screen, id: top, &generator))))
    }
    switch Int.random(in: 0..<20, using: &generator) {
    case 0: return .send(.tabSelected(pick([.list, .trips, .sync], &generator)))
    case 1...10: return .send(.list(listAction(state.list, &generator)))
    case 11...15:
      // Any screen of the stack, not only the top one, or a new trip.
      if let id = state.trips.path.ids.randomElement(using: &generator), let screen = state.trips.path[id: id],
        state.trips.path.count > 3 || Bool.random(using: &generator)
      {
        return .send(.trips(.path(screenAction(screen, id: id, &generator))))
      }
      return .send(.trips(.view(.planTripTapped)))
    default:
      return .send(.sync(.view(pick([.autoSyncToggled(!state.sync.isAutoSyncOn), .syncNowTapped], &generator))))
    }
  }

  private static func listAction(_ list: ErrandList.State, _ generator: inout SeededGenerator) -> ErrandList.Action {
    let word = pick(words, &generator)
    guard let id = list.rows.ids.randomElement(using: &generator), list.rows.count < 8 || Bool.random(using: &generator)
    else { return .view(.addButtonTapped(title: word)) }
    switch Int.random(in: 0..<12, using: &generator) {
    case 0...3: return .rows(.element(id: id, action: .view(.titleChanged(word))))
    case 4...5: return .rows(.element(id: id, action: .view(.doneToggled)))
    case 6: return .rows(.element(id: id, action: .view(.retryTapped)))
    case 7...8: return .view(.errandTapped(id: id))
    case 9: return .view(.deleteTapped(id: id))
    default: return .view(.addButtonTapped(title: word))
    }
  }

  private static func destinationAction(
    _ destination: ErrandList.Destination.State, _ generator: inout SeededGenerator
  ) -> PresentationAction<ErrandList.Destination.Action> {
    switch destination {
    case let .alert(alert):
      let button: PresentationAction<ErrandList.Destination.Action> =
        alert.buttons[0].action.map { .presented(.alert($0)) } ?? .dismiss
      return pick([button, button, .dismiss], &generator)
    case let .detail(detail):
      if detail.alert != nil {
        return .presented(.detail(.alert(pick([.presented(.retrySaveTapped), .dismiss], &generator))))
      }
      let word = pick(words, &generator)
      let item = detail.checklist.items.ids.randomElement(using: &generator)
      let actions: [ErrandDetail.Action] = [
        .view(.titleChanged(word)), .checklist(.addItemTapped(word)), .view(.saveTapped), .view(.cancelTapped),
      ] + (item.map { [.checklist(.itemToggled(id: $0)), .checklist(.itemToggled(id: $0)), .checklist(.removeItemTapped(id: $0))] } ?? [])
      return Int.random(in: 0..<12, using: &generator) == 0 ? .dismiss : .presented(.detail(pick(actions, &generator)))
    }
  }

  private static func screenAction(
    _ screen: Trips.Path.State, id: StackElementID, _ generator: inout SeededGenerator
  ) -> StackActionOf<Trips.Path> {
    switch screen {
    case let .trip(trip):
      if trip.alert != nil {
        return .element(id: id, action: .trip(.alert(pick([.presented(.retryTapped), .dismiss], &generator))))
      }
      let actions: [Trip.Action] = [
        .view(.task), .view(.stopTapped(pick(trip.stops, &generator))), .view(.finishTapped),
        .stopwatch(trip.stopwatch.isRunning ? .stopTapped : .startTapped), .stopwatch(.resetTapped),
      ]
      return Int.random(in: 0..<8, using: &generator) == 0 ? .popFrom(id: id) : .element(id: id, action: .trip(pick(actions, &generator)))
    case .stop:
      return Bool.random(using: &generator) ? .element(id: id, action: .stop(.visitedTapped)) : .popFrom(id: id)
    }
  }

  private static func pick<T>(_ choices: [T], _ generator: inout SeededGenerator) -> T {
    choices[Int.random(in: 0..<choices.count, using: &generator)]
  }
}
