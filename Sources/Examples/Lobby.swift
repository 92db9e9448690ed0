import Bulkhead
import Foundation
import Synchronization

/// A lobby whose signing desk can run in a worker, for showing dependencies that follow a
/// test into workers: the host stamps visits with UUIDs, the desk signs entries with UUIDs and
/// dates, greets guests through a `Greeter` the host answers for, refuses entries past a
/// limit that crosses by value, formats names with a client that cannot cross, and asks a
/// fake quote server with `async` calls (latency on the clock, errors for unknown guests) and
/// a stream, which the host answers when the desk runs in a worker.
///
/// ```swift
/// let store = TestStore(initialState: Lobby.State()) { composition.compose(Lobby()) } withDependencies: {
///   $0.uuid = .incrementing
/// }
/// await store.send(.stampTapped) { $0.stamps = [UUID(0)] }
/// await store.send(.desk(.sign("Blob"))) { $0.desk.entries = [.init(id: UUID(1), name: "Blob", signedAt: …)] }
/// ```
public struct Lobby: Reducer {
  public struct State: Equatable, Codable, Sendable {
    /// The host's own stamps, drawn from the same UUID generator as the desk's entries.
    public var stamps: [UUID] = []
    public var desk = Desk.State()
    public init() {}
  }

  public enum Action: Equatable, Codable, Sendable {
    case stampTapped
    case desk(Desk.Action)
  }

  @Dependency(\.uuid) var uuid

  public init() {}

  public var body: some Reducer<State, Action> {
    Reduce { state, action in
      if case .stampTapped = action { state.stamps.append(uuid()) }
      return .none
    }
    Scope(state: \.desk, action: Action.desk) { Desk() }
  }

  /// Where guests sign: the child that a placement puts in a worker.
  public struct Desk: Reducer {
    public struct State: Equatable, Codable, Sendable {
      public var entries: [Entry] = []
      public var greetings: [String] = []
      public var refused: [String] = []
      /// The quotes the server sent, and what went wrong asking for one.
      public var quotes: [String] = []
      public var quoteProblems: [String] = []
      public init() {}
    }

    public struct Entry: Equatable, Codable, Sendable {
      public var id: UUID
      public var name: String
      public var signedAt: Date
      public init(id: UUID, name: String, signedAt: Date) {
        (self.id, self.name, self.signedAt) = (id, name, signedAt)
      }
    }

    public enum Action: Equatable, Codable, Sendable {
      /// Signs with a UUID and the date, drawn in the reducer.
      case sign(String)
      /// Greets through the `Greeter`, in an effect.
      case greet(String)
      case greeted(String)
      /// Signs `count` anonymous entries from each of two effects at once, each entry's UUID
      /// drawn in the reducer when the effect's action arrives.
      case signInTwoQueues(count: Int)
      case queuedSignature
      /// Writes the guest's name through the `NameFormatter`, which cannot cross.
      case signFormatted(String)
      /// Notes the visit in the `VisitLog`, which has no test value.
      case logVisit(String)
      /// Keeps its effect's `send` after the effect returns: a misuse the runtime reports
      /// when the send is used.
      case keepSend
      /// Greets through the send that `keepSend` kept, from a detached task.
      case greetThroughKeptSend(String)
      /// Asks the quote server for the guest's quote (an `async` call, cancellable).
      case quoteTapped(String)
      case cancelQuoteTapped
      /// Asks the server `times` times in a row, in one effect, and keeps the last quote: what
      /// one call costs, apart from its effect's (the benchmark's per-call figure).
      case askQuotes(String, times: Int)
      /// Follows the server's stream of quotes for the guest.
      case followQuotes(String)
      case quoteArrived(String)
      /// The server refused: its error crossed as itself.
      case quoteRefused(QuoteError)
      /// Any other failure, described.
      case quoteFailed(String)
    }

    private enum CancelID { case quote }

    /// The send that `keepSend` kept, in this process.
    static let keptSend = Mutex<Send<Action>?>(nil)

    @Dependency(\.uuid) var uuid
    @Dependency(\.date) var date
    @Dependency(\.greeter) var greeter
    @Dependency(\.lobbyLimit) var limit
    @Dependency(\.nameFormatter) var nameFormatter
    @Dependency(\.visitLog) var visitLog
    @Dependency(\.quotes) var quotes

    public init() {}

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .sign(name):
        guard state.entries.count < limit else {
          state.refused.append(name)
          return .none
        }
        state.entries.append(Entry(id: uuid(), name: name, signedAt: date.now))
        return .none
      case let .greet(name):
        return .run { [greeter] send in await send(.greeted(greeter.greet(name))) }
      case let .greeted(greeting):
        state.greetings.append(greeting)
        return .none
      case let .signInTwoQueues(count):
        let queue = Effect<Action>.run { send in
          for _ in 0..<count { await send(.queuedSignature) }
        }
        return .merge(queue, queue)
      case .queuedSignature:
        state.entries.append(Entry(id: uuid(), name: "anonymous", signedAt: date.now))
        return .none
      case let .signFormatted(name):
        state.entries.append(Entry(id: uuid(), name: nameFormatter.format(name), signedAt: date.now))
        return .none
      case let .logVisit(name):
        visitLog.record(name)
        return .none
      case .keepSend:
        return .run { send in Self.keptSend.withLock { $0 = send } }
      case let .greetThroughKeptSend(name):
        return .run { _ in
          guard let kept = Self.keptSend.withLock({ $0 }) else { return }
          await Task.detached { await kept(.greeted("Hello, \(name)")) }.value
        }
      case let .quoteTapped(name):
        return .run { [quotes] send in
          do {
            await send(.quoteArrived(try await quotes.fetch(name)))
          } catch let error as QuoteError {
            await send(.quoteRefused(error))
          } catch is CancellationError {
            // Cancelled (`cancelQuoteTapped`): nothing to say.
          } catch {
            await send(.quoteFailed("\(error)"))
          }
        }
        .cancellable(id: CancelID.quote, cancelInFlight: true)
      case .cancelQuoteTapped:
        return .cancel(id: CancelID.quote)
      case let .askQuotes(name, times):
        return .run { [quotes] send in
          var last: String?
          for _ in 0..<times { last = try await quotes.fetch(name) }
          if let last { await send(.quoteArrived(last)) }
        }
      case let .followQuotes(name):
        return .run { [quotes] send in
          do {
            for try await quote in quotes.feed(name) { await send(.quoteArrived(quote)) }
          } catch let error as QuoteError {
            await send(.quoteRefused(error))
          } catch {
            await send(.quoteFailed("\(error)"))
          }
        }
      case let .quoteArrived(quote):
        state.quotes.append(quote)
        return .none
      case let .quoteRefused(error):
        state.quoteProblems.append("\(error)")
        return .none
      case let .quoteFailed(problem):
        state.quoteProblems.append(problem)
        return .none
      }
    }
  }
}

/// Greets guests: a client whose calls a worker asks the host to make.
public struct Greeter: Sendable {
  public var greet: @Sendable (_ name: String) -> String
  public init(greet: @escaping @Sendable (_ name: String) -> String) { self.greet = greet }
}

/// Internal, not private, so that a host that never read it can still find it by name.
enum GreeterKey: CrossingDependencyKey {
  static let liveValue = Greeter { "Welcome, \($0)!" }
  static let testValue = Greeter { "Hello, \($0)" }

  static func answer(_ name: String, with greeter: Greeter) -> String { greeter.greet(name) }
  static func asking(_ ask: @escaping @Sendable (String) -> String) -> Greeter { Greeter(greet: ask) }
}

/// A quote server's client, with `async` calls: the host answers a worker's calls
/// (`QuoteClientKey`), so a test's override or its clock reaches the desk in a worker.
public struct QuoteClient: Sendable {
  /// The guest's quote.
  public var fetch: @Sendable (_ name: String) async throws -> String
  /// The guest's quotes, one after another, until the server finishes.
  public var feed: @Sendable (_ name: String) -> AsyncThrowingStream<String, any Error>

  public init(
    fetch: @escaping @Sendable (_ name: String) async throws -> String,
    feed: @escaping @Sendable (_ name: String) -> AsyncThrowingStream<String, any Error>
  ) {
    (self.fetch, self.feed) = (fetch, feed)
  }

  /// How long the fake server takes to answer, on the clock in force.
  public static let latency = Duration.milliseconds(300)

  /// A fake server in the app: each answer takes `latency` on the clock in force (a test's
  /// `TestClock` too), and a guest whose name starts with "?" is unknown to it.
  public static let fakeServer = QuoteClient(
    fetch: { name in
      @Dependency(\.continuousClock) var clock
      try await clock.sleep(for: latency)
      guard !name.hasPrefix("?") else { throw QuoteError.unknownGuest(name) }
      return "\(name): well begun is half done"
    },
    feed: { name in
      @Dependency(\.continuousClock) var clock
      let served = ServedCount()
      // Made in the iterating task, not in a task of its own, so that a test store waits
      // for it as for the effect that iterates.
      return AsyncThrowingStream {
        let count = served.next()
        guard count <= 3 else { return nil }
        try await clock.sleep(for: latency)
        guard !name.hasPrefix("?") else { throw QuoteError.unknownGuest(name) }
        return "\(name): quote \(count) of 3"
      }
    })
}

/// How many quotes a stream of the fake server has served.
private final class ServedCount: Sendable {
  private let count = Mutex(0)

  func next() -> Int {
    count.withLock { count in
      count += 1
      return count
    }
  }
}

/// What the quote server refuses with; `Codable`, so it crosses from the host as itself.
public enum QuoteError: Error, Codable, Equatable, Sendable, CustomStringConvertible {
  case unknownGuest(String)

  public var description: String {
    switch self {
    case let .unknownGuest(name): "the quote server does not know \"\(name)\""
    }
  }
}

/// Internal, not private, so that a host that never read it can still find it by name.
enum QuoteClientKey: StreamingCrossingDependencyKey {
  static let liveValue = QuoteClient.fakeServer
  static let testValue = QuoteClient.fakeServer

  static func answer(_ name: String, with client: QuoteClient) async throws -> String {
    try await client.fetch(name)
  }

  static func answers(_ name: String, with client: QuoteClient) -> AsyncThrowingStream<String, any Error> {
    client.feed(name)
  }

  static func asking(
    _ ask: @escaping @Sendable (String) async throws -> String,
    streaming: @escaping @Sendable (String) -> AsyncThrowingStream<String, any Error>
  ) -> QuoteClient {
    QuoteClient(fetch: ask, feed: streaming)
  }
}

/// How many entries the desk takes: crosses by value.
enum LobbyLimitKey: CrossingDependencyKey {
  static let liveValue = 100
  static let testValue = 100
}

/// Writes a guest's name as the book shows it; its closure cannot cross.
public struct NameFormatter: Sendable {
  public var format: @Sendable (_ name: String) -> String
  public init(format: @escaping @Sendable (_ name: String) -> String) { self.format = format }
}

private enum NameFormatterKey: DependencyKey {
  static let liveValue = NameFormatter { $0.capitalized }
  static let testValue = NameFormatter { $0 }
}

/// Where visits are noted; it has no test value, so a test that uses it fails.
public struct VisitLog: Sendable {
  public var record: @Sendable (_ name: String) -> Void
  public init(record: @escaping @Sendable (_ name: String) -> Void) { self.record = record }
}

private enum VisitLogKey: DependencyKey {
  static let liveValue = VisitLog { _ in }
}

extension DependencyValues {
  public var greeter: Greeter {
    get { self[GreeterKey.self] }
    set { self[GreeterKey.self] = newValue }
  }

  public var lobbyLimit: Int {
    get { self[LobbyLimitKey.self] }
    set { self[LobbyLimitKey.self] = newValue }
  }

  public var nameFormatter: NameFormatter {
    get { self[NameFormatterKey.self] }
    set { self[NameFormatterKey.self] = newValue }
  }

  public var quotes: QuoteClient {
    get { self[QuoteClientKey.self] }
    set { self[QuoteClientKey.self] = newValue }
  }

  public var visitLog: VisitLog {
    get { self[VisitLogKey.self] }
    set { self[VisitLogKey.self] = newValue }
  }
}
