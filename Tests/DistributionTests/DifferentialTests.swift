import Bulkhead
import BulkheadDistribution
import Examples
import Foundation
import Synchronization
import Testing
import TransportTestSupport

/// Random action sequences, seeded and reproducible, give the same state after every action
/// and the same actions at the root whether the boundaries run in the host or in workers.
@MainActor
@Suite(.serialized) struct DifferentialTests {
  @Test func twoCounters() async throws {
    try await compare(
      app: "two-counters", placement: "counter1\ncounter2\n", initialState: TwoCounters.State(),
      reducer: TwoCounters()
    ) { _, generator in
      let counter: Counter.Action = Bool.random(using: &generator) ? .incrementButtonTapped : .decrementButtonTapped
      return Bool.random(using: &generator) ? .counter1(counter) : .counter2(counter)
    }
  }

  @Test func dashboard() async throws {
    try await compare(
      app: "dashboard", placement: "profile\nnotifications\n", initialState: Dashboard.State(),
      reducer: Dashboard()
    ) { _, generator in
      switch Int.random(in: 0..<3, using: &generator) {
      case 0: .profile(.nameChanged("name \(Int.random(in: 0..<100, using: &generator))"))
      case 1: .notifications(.received("note \(Int.random(in: 0..<100, using: &generator))"))
      default: .settings(.notificationsToggled(Bool.random(using: &generator)))
      }
    }
  }

  @Test func profileWithEffects() async throws {
    try await compare(
      app: "profile", placement: "editForm\n",
      initialState: ProfileEditor.State(name: "Blob", email: "blob@example.com"),
      reducer: ProfileEditor(), count: 600
    ) { state, generator in
      guard state.editForm != nil else { return .editButtonTapped }
      return Int.random(in: 0..<4, using: &generator) == 0
        ? .editForm(.saveButtonTapped)
        : .editForm(.nameChanged("Blob \(Int.random(in: 0..<100, using: &generator))"))
    }
  }

  @Test func twoLevelsDown() async throws {
    let (state, statistics, _) = try await compare(
      app: "account", placement: "profile\nprofile.avatar\n", initialState: Account.State(), reducer: Account(),
      count: 2_000,
      dependencies: {
        $0.continuousClock = ImmediateClock()
        $0.uuid = .incrementing
      }
    ) { _, generator in
      switch Int.random(in: 0..<4, using: &generator) {
      case 0: .profile(.nameChanged("name \(Int.random(in: 0..<100, using: &generator))"))
      case 1: .profile(.avatar(.uploadTapped))
      default: .profile(.avatar(.edited))
      }
    }
    // The uploads' actions came from the inner worker's effects and passed every parent.
    #expect(state.uploadsSeen > 300)
    #expect(state.profile.uploadsSeen == state.uploadsSeen)
    #expect(statistics.keys.sorted() == ["profile"])
  }

  @Test func timersInAPool() async throws {
    try await compare(
      app: "timers", placement: "timers pool 3\n", initialState: Timers.State(), reducer: Timers(),
      next: Timers.randomAction)
  }

  @Test func effectStreamsWhileTheParentSometimesChangesTheChild() async throws {
    let (state, statistics, _) = try await compare(
      app: "payload", placement: "store\n", initialState: Payload.State(), reducer: Payload(), count: 300
    ) { _, generator in
      switch Int.random(in: 0..<6, using: &generator) {
      case 0: .store(.bump)
      case 1: .parentBumpsOnStream(Bool.random(using: &generator))
      default: .store(.stream(count: Int.random(in: 1...4, using: &generator)))
      }
    }
    // The worker's outcomes were taken while its copy was the host's, and refused after the
    // parent had changed the child: both paths ran, and the states above stayed equal.
    let precomputed = statistics["store"]?.precomputedActions ?? 0
    #expect(precomputed > 0)
    #expect(precomputed < state.streamedSeen)
  }

  @Test func navigationWithDismissalsFromEffects() async throws {
    let (_, statistics, warnings) = try await compare(
      app: "notes", placement: "destination\npath pool 3\n", initialState: Notes.State(), reducer: Notes(),
      count: 3_000, dependencies: { $0.continuousClock = ImmediateClock() }, next: Self.notesAction)
    // Dismissals reached both kinds of boundary: destinations retired, stack screens dropped.
    #expect(statistics["destination"]?.workersRetired ?? 0 > 20)
    #expect(statistics["path"]?.slotsDropped ?? 0 > 20)
    // The editor's actions sent while an alert or a dialog was up were warned about, in the
    // worker as in one process, and (the states being equal) left the alert or dialog up.
    #expect(warnings > 20)
  }

  @Test func navigationWithTheFeaturesInsideTheSheetAndTheScreensInWorkers() async throws {
    let (_, statistics, _) = try await compare(
      app: "notes", placement: "destination.editor\npath.detail pool 2\npath.info\n", initialState: Notes.State(),
      reducer: Notes(), count: 3_000, dependencies: { $0.continuousClock = ImmediateClock() }, next: Self.notesAction)
    // Sheets and screens came and went: each time, the worker forgot the child, and its
    // dismissals from effects went through the host's operators.
    #expect(statistics["destination.editor"]?.slotsDropped ?? 0 > 20)
    #expect(statistics["path.detail"]?.slotsDropped ?? 0 > 20)
    #expect(statistics["path.info"]?.slotsDropped ?? 0 > 5)
  }

  /// A random action that the Notes app can take in `state`: mostly what its screens offer
  /// (including the sheet's save and cancel, the detail's "Done" and the info's "Close", which
  /// dismiss from effects), plus pushes and pops sent by hand, and actions of another case of
  /// the destination while an alert or a dialog is up, which must not dismiss it.
  private static func notesAction(_ state: Notes.State, _ generator: inout SeededGenerator) -> Notes.Action {
    func pick<T>(_ choices: [T]) -> T { choices.randomElement(using: &generator)! }
    let word = pick(["milk", "eggs", "bread", "tea"])
    let editing = Notes.Destination.Action.editor(.titleChanged(word))
    switch state.destination {
    case .editor? where Bool.random(using: &generator):
      return .destination(pick([.presented(.editor(.titleChanged(word))), .presented(.editor(.saveButtonTapped)),
        .presented(.editor(.cancelButtonTapped)), .dismiss]))
    case let .alert(alert)? where Bool.random(using: &generator):
      return .destination(pick([alert.buttons[0].action.map { .presented(.alert($0)) } ?? .dismiss, .dismiss,
        .presented(editing)]))
    case .dialog? where Bool.random(using: &generator):
      return .destination(pick([.presented(.dialog(.clearAll)), .dismiss, .presented(editing),
        .presented(.alert(.confirmDeletion(id: pick(state.notes.ids + [99]))))]))
    default:
      break
    }
    let noteIDs = state.notes.ids
    if let top = zip(state.path.ids, state.path).map({ $0 }).randomElement(using: &generator),
      Int.random(in: 0..<3, using: &generator) > 0
    {
      switch top.1 {
      case .detail:
        return .path(pick([.element(id: top.0, action: .detail(pick([.bodyChanged(word), .infoButtonTapped, .doneButtonTapped]))),
          .popFrom(id: top.0)]))
      case .info:
        return .path(.element(id: top.0, action: .info(pick([.closeButtonTapped, .backToListButtonTapped]))))
      }
    }
    switch Int.random(in: 0..<6, using: &generator) {
    case 0: return .addButtonTapped
    case 1: return .clearButtonTapped
    case 2 where !noteIDs.isEmpty: return .deleteButtonTapped(id: pick(noteIDs))
    case 3 where !noteIDs.isEmpty: return .noteTapped(id: pick(noteIDs))
    case 4:
      let note = state.notes.first ?? Notes.Note(id: 99, title: word)
      return .path(.push(id: state.path.nextID, state: .info(Notes.Info.State(note: note))))
    default: return .addButtonTapped
    }
  }

  /// Runs `count` actions from `next` in one process and with `placement`, comparing states
  /// and how many runtime warnings were raised after each, and the root's action logs at the
  /// end; returns the last state, what crossed each placed boundary, and how many warnings
  /// each side raised.
  @discardableResult
  private func compare<R: Reducer>(
    app: String, placement: String, initialState: R.State, reducer: R, count: Int = 1_000,
    seed: UInt64 = 2026, dependencies: (inout DependencyValues) -> Void = { _ in },
    next: (R.State, inout SeededGenerator) -> R.Action
  ) async throws -> (R.State, [String: BoundaryStatistics], warnings: Int)
  where R.State: Equatable & Sendable, R.Action: Equatable {
    let composition = try composition(app: app, placement: placement)
    defer { composition.shutdown() }
    let localLog = Log<R.Action>()
    let remoteLog = Log<R.Action>()
    let local = Store(initialState: initialState) {
      Reduce<R.State, R.Action> { _, action in localLog.append(action); return .none }
      reducer
    } withDependencies: { dependencies(&$0) }
    let remote = Store(initialState: initialState) {
      Reduce<R.State, R.Action> { _, action in remoteLog.append(action); return .none }
      composition.compose(reducer)
    } withDependencies: { dependencies(&$0) }
    let localWarnings = Log<RuntimeWarning>()
    let remoteWarnings = Log<RuntimeWarning>()
    var generator = SeededGenerator(seed: seed)
    for step in 0..<count {
      let action = next(local.state, &generator)
      await withRuntimeWarningHandler(localWarnings.append) { await local.send(action).finish() }
      await withRuntimeWarningHandler(remoteWarnings.append) { await remote.send(action).finish() }
      guard local.state == remote.state else {
        Issue.record("seed \(seed), step \(step), after \(action): \(remote.state) in workers, \(local.state) in one process")
        break
      }
      guard localWarnings.all.count == remoteWarnings.all.count else {
        Issue.record("seed \(seed), step \(step), after \(action): warnings \(remoteWarnings.all) in workers, \(localWarnings.all) in one process")
        break
      }
    }
    #expect(localLog.all == remoteLog.all)
    #expect(localLog.all.count >= count)
    let statistics = composition.processes.reduce(into: [String: BoundaryStatistics]()) {
      $0[$1.boundary] = composition.statistics(of: $1.boundary)
    }
    return (local.state, statistics, localWarnings.all.count)
  }
}

/// Entries appended from any thread.
final class Log<Entry: Sendable>: Sendable {
  private let entries = Mutex<[Entry]>([])
  var all: [Entry] { entries.withLock { $0 } }
  func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }
}

/// A clock whose sleeps end at once, so that effects that wait on it finish within their step.
struct ImmediateClock: Clock {
  var now: ContinuousClock.Instant { .now }
  var minimumResolution: Duration { .zero }

  func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
    try Task.checkCancellation()
  }
}
