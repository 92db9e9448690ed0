import Bulkhead
import BulkheadDistribution
import BulkheadTesting
import ExampleScripts
import Examples
import Foundation
import TestThreads
import Testing
import TransportTestSupport

/// Async dependencies follow a test into workers: the lobby's desk runs in a worker, and its
/// effects await the quote client's `async` calls and stream, which the host answers with
/// its own value, each call in a task of its own.
@MainActor
@Suite(.onItsOwnThread, .serialized) struct AsyncDependencyCrossingTests {
  /// What the host's quote client did, for a test to wait on.
  enum ClientEvent: Equatable, Sendable {
    case started(String)
    case cancelled(String)
  }

  /// An error the host's client throws that is not `Codable`.
  struct Outage: Error, CustomStringConvertible {
    var description: String { "the server is down" }
  }

  /// A client whose calls say when they start and when they are cancelled, wait for `gate`
  /// when asked about "slow", throw `Outage` for "down", and answer others at once with the
  /// pid of the process that answered.
  static func recording(_ events: EventLog<ClientEvent>, gate: AsyncStream<Void>) -> QuoteClient {
    QuoteClient(
      fetch: { name in
        events.append(.started(name))
        if name == "down" { throw Outage() }
        if name == "slow" {
          await withTaskCancellationHandler {
            for await _ in gate { break }
          } onCancel: {
            events.append(.cancelled(name))
          }
          try Task.checkCancellation()
        }
        return "\(name) from \(ProcessInfo.processInfo.processIdentifier)"
      },
      feed: { name in
        AsyncThrowingStream { continuation in
          continuation.yield("\(name) at once")
          continuation.finish()
        }
      })
  }

  static let hostPID = ProcessInfo.processInfo.processIdentifier

  @Test func theQuoteScriptPassesWithTheDeskInAWorker() async throws {
    let composition = try composition(app: "lobby", placement: "desk\n")
    defer { composition.shutdown() }
    let clock = TestClock()
    let store = TestStore(initialState: Lobby.State()) { composition.compose(Lobby()) } withDependencies: {
      $0.continuousClock = clock
    }
    // The server's latency is a sleep in the host's answer, on the test's clock; the error
    // crosses as itself; the cancelled question never answers; the stream ends with the host's.
    await ExampleScripts.lobbyQuotes(store, clock: clock)
    #expect(composition.statistics(of: "desk")?.failures == 0)
  }

  @Test func theHostsOverrideAnswersAndANonCodableErrorCrossesDescribed() async throws {
    let composition = try composition(app: "lobby", placement: "desk\n")
    defer { composition.shutdown() }
    let events = EventLog<ClientEvent>()
    let store = TestStore(initialState: Lobby.State()) { composition.compose(Lobby()) } withDependencies: {
      $0.quotes = Self.recording(events, gate: AsyncStream { _ in })
    }
    await store.send(.desk(.quoteTapped("Blob")))
    // Made in the host's process: the pid says where the client ran.
    await store.receive(.desk(.quoteArrived("Blob from \(Self.hostPID)"))) {
      $0.desk.quotes = ["Blob from \(Self.hostPID)"]
    }
    await store.send(.desk(.quoteTapped("down")))
    let described = "The remote call threw \(String(reflecting: Outage.self)): the server is down"
    await store.receive(.desk(.quoteFailed(described))) { $0.desk.quoteProblems = [described] }
    await store.send(.desk(.followQuotes("Blob")))
    await store.receive(.desk(.quoteArrived("Blob at once"))) { $0.desk.quotes.append("Blob at once") }
    // An override made between steps answers the next call.
    store.dependencies.quotes = QuoteClient(fetch: { "\($0), later" }, feed: { _ in AsyncThrowingStream { $0.finish() } })
    await store.send(.desk(.quoteTapped("Blob")))
    await store.receive(.desk(.quoteArrived("Blob, later"))) { $0.desk.quotes.append("Blob, later") }
  }

  @Test func cancellingTheEffectCancelsTheHostsCall() async throws {
    let composition = try composition(app: "lobby", placement: "desk\n")
    defer { composition.shutdown() }
    let events = EventLog<ClientEvent>()
    let (gate, opening) = AsyncStream<Void>.makeStream()
    defer { opening.finish() }  // never opened: only cancellation ends the call
    let store = TestStore(initialState: Lobby.State()) { composition.compose(Lobby()) } withDependencies: {
      $0.quotes = Self.recording(events, gate: gate)
    }
    await store.send(.desk(.quoteTapped("slow")))
    #expect(await events.first { $0 == .started("slow") } != nil)
    await store.send(.desk(.cancelQuoteTapped))
    #expect(await events.first { $0 == .cancelled("slow") } != nil)
    await store.finish()
  }

  @Test func aSlowAnswerHoldsNeitherAnotherCallNorAQuestionOfTheSameWorker() async throws {
    let composition = try composition(app: "lobby", placement: "desk\n")
    defer { composition.shutdown() }
    let events = EventLog<ClientEvent>()
    let (gate, opening) = AsyncStream<Void>.makeStream()
    let store = TestStore(initialState: Lobby.State()) { composition.compose(Lobby()) } withDependencies: {
      $0.quotes = Self.recording(events, gate: gate)
    }
    await store.send(.desk(.quoteTapped("slow")))
    #expect(await events.first { $0 == .started("slow") } != nil)
    // While the host still answers the first call, a second effect's stream and a third's
    // synchronous question are answered.
    await store.send(.desk(.followQuotes("Blob")))
    await store.receive(.desk(.quoteArrived("Blob at once"))) { $0.desk.quotes = ["Blob at once"] }
    await store.send(.desk(.greet("Blob")))
    await store.receive(.desk(.greeted("Hello, Blob"))) { $0.desk.greetings = ["Hello, Blob"] }
    opening.yield()
    await store.receive(.desk(.quoteArrived("slow from \(Self.hostPID)"))) {
      $0.desk.quotes.append("slow from \(Self.hostPID)")
    }
  }

  @Test func aWorkerKilledDuringACallHasTheHostCancelIt() async throws {
    let boundaryEvents = Events()
    let composition = try composition(app: "lobby", placement: "desk\n", events: boundaryEvents)
    defer { composition.shutdown() }
    let events = EventLog<ClientEvent>()
    let (gate, opening) = AsyncStream<Void>.makeStream()
    defer { opening.finish() }  // never opened: only cancellation ends the call
    let store = Store(initialState: Lobby.State()) { composition.compose(Lobby()) } withDependencies: {
      $0.quotes = Self.recording(events, gate: gate)
    }
    store.send(.desk(.quoteTapped("slow")))
    #expect(await events.first { $0 == .started("slow") } != nil)
    composition.killWorker(of: "desk")
    #expect(await events.first { $0 == .cancelled("slow") } != nil)
    // The effect that awaited the call was lost with its worker, and said so.
    #expect(await boundaryEvents.first { $0 == .effectsLost(boundary: "desk", count: 1) } != nil)
  }
}
