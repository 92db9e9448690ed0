import Bulkhead
import BulkheadDistribution
import BulkheadTesting
import Examples
import Foundation
import Synchronization
import Testing

/// Dependencies follow a test into workers: the lobby's desk runs in a worker, and what
/// its reducer and effects draw from uuid, date and the greeter is the host's, as in one
/// process.
@MainActor
@Suite(.serialized) struct DependencyCrossingTests {
  static let noon = Date(timeIntervalSince1970: 1_800_000_000)
  static let evening = Date(timeIntervalSince1970: 1_800_021_600)

  /// Host and desk draw from one incrementing sequence, and the desk's dates are the host's
  /// fixed ones, changed between steps. The same script passes in one process.
  static func sharedSequence(_ store: TestStore<Lobby.State, Lobby.Action>) async {
    await store.send(.stampTapped) { $0.stamps = [uuid(0)] }
    await store.send(.desk(.sign("Blob"))) {
      $0.desk.entries = [Lobby.Desk.Entry(id: uuid(1), name: "Blob", signedAt: noon)]
    }
    await store.send(.stampTapped) { $0.stamps = [uuid(0), uuid(2)] }
    store.dependencies.date = .constant(evening)
    await store.send(.desk(.sign("Blob Jr"))) {
      $0.desk.entries.append(Lobby.Desk.Entry(id: uuid(3), name: "Blob Jr", signedAt: evening))
    }
  }

  static func overridden(_ values: inout DependencyValues) {
    values.uuid = .incrementing
    values.date = .constant(noon)
  }

  @Test func anIncrementingUUIDAndAFixedDateReachAWorkerAsInOneProcess() async throws {
    await Self.sharedSequence(
      TestStore(initialState: Lobby.State(), reducer: { Lobby() }, withDependencies: Self.overridden))

    let composition = try composition(app: "lobby", placement: "desk\n")
    defer { composition.shutdown() }
    await Self.sharedSequence(
      TestStore(
        initialState: Lobby.State(), reducer: { composition.compose(Lobby()) },
        withDependencies: Self.overridden))
    #expect(composition.statistics(of: "desk")?.actions == 2)
  }

  @Test func withoutOverridesAWorkerUsesTheHostsTestValues() async throws {
    let composition = try composition(app: "lobby", placement: "desk\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: Lobby.State()) { composition.compose(Lobby()) }
    await store.send(.stampTapped) { $0.stamps = [uuid(0)] }
    await store.send(.desk(.sign("Blob"))) {
      $0.desk.entries = [
        Lobby.Desk.Entry(id: uuid(1), name: "Blob", signedAt: Date(timeIntervalSinceReferenceDate: 0))
      ]
    }
    await store.send(.desk(.greet("Blob")))
    await store.receive(.desk(.greeted("Hello, Blob"))) { $0.desk.greetings = ["Hello, Blob"] }
  }

  @Test func anOverrideOnAReducerAboveTheBoundaryReachesTheWorker() async throws {
    let composition = try composition(app: "lobby", placement: "desk\n")
    defer { composition.shutdown() }
    let fixed = uuid(42)
    let store = TestStore(initialState: Lobby.State()) {
      composition.compose(Lobby().dependency(\.uuid, UUIDGenerator { fixed }))
    }
    await store.send(.desk(.sign("Blob"))) {
      $0.desk.entries = [
        Lobby.Desk.Entry(id: fixed, name: "Blob", signedAt: Date(timeIntervalSinceReferenceDate: 0))
      ]
    }
    await store.send(.stampTapped) { $0.stamps = [fixed] }
  }

  @Test func aUserDependencyIsAnsweredByTheHostsOverride() async throws {
    let composition = try composition(app: "lobby", placement: "desk\n")
    defer { composition.shutdown() }
    let calls = Mutex(0)
    let hostPID = ProcessInfo.processInfo.processIdentifier
    let store = TestStore(initialState: Lobby.State()) {
      composition.compose(Lobby())
    } withDependencies: {
      $0.greeter = Greeter { name in
        let call = calls.withLock { count in
          count += 1
          return count
        }
        // Made in the host's process: the pid says where the closure ran.
        return "Hi \(name), #\(call) from \(ProcessInfo.processInfo.processIdentifier)"
      }
      $0.lobbyLimit = 1
    }
    await store.send(.desk(.greet("Blob")))
    await store.receive(.desk(.greeted("Hi Blob, #1 from \(hostPID)"))) {
      $0.desk.greetings = ["Hi Blob, #1 from \(hostPID)"]
    }
    await store.send(.desk(.greet("Blob Jr")))
    await store.receive(.desk(.greeted("Hi Blob Jr, #2 from \(hostPID)"))) {
      $0.desk.greetings.append("Hi Blob Jr, #2 from \(hostPID)")
    }
    #expect(calls.withLock { $0 } == 2)
    // The limit crosses by value: one entry, then the desk refuses.
    await store.send(.desk(.sign("Blob"))) {
      $0.desk.entries = [
        Lobby.Desk.Entry(id: uuid(0), name: "Blob", signedAt: Date(timeIntervalSinceReferenceDate: 0))
      ]
    }
    await store.send(.desk(.sign("Blob Jr"))) { $0.desk.refused = ["Blob Jr"] }
  }

  @Test func aDependencyWithoutATestValueUsedInAWorkerFailsTheTestWithItsName() async throws {
    let composition = try composition(app: "lobby", placement: "desk\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: Lobby.State()) { composition.compose(Lobby()) }
    await withKnownIssue {
      await store.send(.desk(.logVisit("Blob")))
    } matching: { issue in
      issue.comments.contains {
        $0.rawValue.contains("The worker of boundary \"desk\"")
          && $0.rawValue.contains("The dependency Examples.VisitLogKey has no test value")
          && $0.rawValue.contains("static let testValue")
      }
    }
  }

  @Test func anOverrideThatCannotCrossWarnsWithTheKeyAndTheBoundaryOnce() async throws {
    let composition = try composition(app: "lobby", placement: "desk\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: Lobby.State()) {
      composition.compose(Lobby())
    } withDependencies: {
      $0.nameFormatter = NameFormatter { $0.uppercased() }
    }
    // The desk does not use the formatter here: nothing to warn about.
    await store.send(.desk(.sign("Blob"))) {
      $0.desk.entries = [
        Lobby.Desk.Entry(id: uuid(0), name: "Blob", signedAt: Date(timeIntervalSinceReferenceDate: 0))
      ]
    }
    await withKnownIssue {
      await store.send(.desk(.signFormatted("blob jr"))) {
        $0.desk.entries.append(
          Lobby.Desk.Entry(id: uuid(1), name: "blob jr", signedAt: Date(timeIntervalSinceReferenceDate: 0)))
      }
    } matching: { issue in
      issue.comments.contains {
        $0.rawValue.contains("The dependency Examples.NameFormatterKey is overridden on the host")
          && $0.rawValue.contains("worker of boundary \"desk\"") && $0.rawValue.contains("CrossingDependencyKey")
      }
    }
    // Once per boundary and key.
    await store.send(.desk(.signFormatted("blob iii"))) {
      $0.desk.entries.append(
        Lobby.Desk.Entry(id: uuid(2), name: "blob iii", signedAt: Date(timeIntervalSinceReferenceDate: 0)))
    }
  }

  /// The desk's reducer asks the host for UUIDs and dates while the host's reducer waits for
  /// its reply, and two effects' actions arrive at once, so that the host's word on one
  /// reaches the worker while the next one's request waits for an answer. A deadlock would
  /// show as a stall (the boundary's deadline is 2 s) and a restart.
  @Test func aWorkerReducerAskingTheHostWhileTheHostWaitsDoesNotDeadlock() async throws {
    let events = Events()
    let composition = try composition(app: "lobby", placement: "desk\n", events: events)
    defer { composition.shutdown() }
    let store = Store(initialState: Lobby.State()) { composition.compose(Lobby()) } withDependencies: {
      $0.context = .test
    }
    let count = 300
    await store.send(.desk(.signInTwoQueues(count: count))).finish()
    store.send(.stampTapped)
    #expect(store.state.desk.entries.count == 2 * count)
    let drawn = Set(store.state.desk.entries.map(\.id) + store.state.stamps)
    #expect(drawn.count == 2 * count + 1)
    #expect(drawn.isSuperset(of: (0...(2 * count)).map(uuid)))
    #expect(!events.all.contains { if case .workerStarted = $0 { false } else { $0.description.contains("stalled") || $0.description.contains("restarted") } })
    #expect(composition.statistics(of: "desk")?.failures == 0)
  }
}

/// The UUID an incrementing generator makes `n`th.
func uuid(_ n: Int) -> UUID {
  UUID(uuidString: String(format: "00000000-0000-0000-0000-%012llX", n))!
}
