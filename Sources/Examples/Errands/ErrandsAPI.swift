import Bulkhead

/// One errand as the server stores it: `revision` counts the saves the server accepted.
public struct Errand: Equatable, Codable, Sendable, Identifiable {
  public let id: Int
  public var title: String
  public var isDone: Bool
  public var revision: Int
  public init(id: Int, title: String, isDone: Bool = false, revision: Int = 0) {
    (self.id, self.title, self.isDone, self.revision) = (id, title, isDone, revision)
  }
}

/// What the server says about itself when the sync tab asks.
public struct ServerStatus: Equatable, Codable, Sendable {
  /// The sync the server answered: the one after the `since` the app sent.
  public var version: Int
  public var message: String
  public init(version: Int, message: String) { (self.version, self.message) = (version, message) }
}

/// Why a call to the server failed. Codable, so that it crosses a process boundary as itself.
public enum APIError: Error, Equatable, Codable, Sendable, CustomStringConvertible {
  /// The server did not take the call; trying again may work.
  case unavailable
  /// The server answered a question with the answer to another kind of question.
  case unexpectedAnswer(question: String, answer: String)
  /// Any other error, by its description.
  case other(String)

  /// `error` as an `APIError`: itself if it is one, else its description.
  public init(_ error: any Error) {
    self = error as? APIError ?? .other("\(error)")
  }

  public var description: String {
    switch self {
    case .unavailable: "The server is unavailable. Try again."
    case let .unexpectedAnswer(question, answer): "The server answered \(question) with \(answer)."
    case let .other(description): description
    }
  }
}

/// The errands app's client for its server: every call is `async throws`, as a real API
/// client's are. Each call goes through one `Question` and comes back as one `Answer`, so
/// that a whole client can be rebuilt from a single function that answers questions
/// (`init(asking:)`) and any client can answer them (`answer(_:)`): the shape a dependency
/// needs to be answered by another process.
///
/// ```swift
/// @Dependency(\.errandsAPI) var api
/// let saved = try await api.save(errand, 0)
/// ```
public struct ErrandsAPI: Sendable {
  /// Saves an errand; the server's copy comes back with its revision increased. `attempt`
  /// counts the tries before this one that the server refused (0 the first time), as a
  /// retrying client tells a busy server.
  public var save: @Sendable (_ errand: Errand, _ attempt: Int) async throws -> Errand
  /// Creates an errand with the id the app chose.
  public var create: @Sendable (_ id: Int, _ title: String) async throws -> Errand
  /// The order in which to visit `stops`.
  public var route: @Sendable (_ stops: [String], _ attempt: Int) async throws -> [String]
  /// The server's status, after the sync `since`.
  public var status: @Sendable (_ since: Int, _ attempt: Int) async throws -> ServerStatus

  /// One call, as a value that can cross a process boundary.
  public enum Question: Equatable, Codable, Sendable {
    case save(Errand, attempt: Int)
    case create(id: Int, title: String)
    case route(stops: [String], attempt: Int)
    case status(since: Int, attempt: Int)
  }

  /// The server's answer to a `Question`.
  public enum Answer: Equatable, Codable, Sendable {
    case errand(Errand)
    case route([String])
    case status(ServerStatus)
  }

  /// A client made of four closures; a test overrides any of them.
  ///
  /// ```swift
  /// ErrandsAPI(save: { e, _ in e }, create: { Errand(id: $0, title: $1) }, route: { s, _ in s }, status: { v, _ in ServerStatus(version: v + 1, message: "") })
  /// ```
  public init(
    save: @escaping @Sendable (_ errand: Errand, _ attempt: Int) async throws -> Errand,
    create: @escaping @Sendable (_ id: Int, _ title: String) async throws -> Errand,
    route: @escaping @Sendable (_ stops: [String], _ attempt: Int) async throws -> [String],
    status: @escaping @Sendable (_ since: Int, _ attempt: Int) async throws -> ServerStatus
  ) {
    (self.save, self.create, self.route, self.status) = (save, create, route, status)
  }

  /// A client whose every call asks `ask` its question, and takes the answer of the kind
  /// the call expects (another kind throws `APIError.unexpectedAnswer`).
  ///
  /// ```swift
  /// let api = ErrandsAPI(asking: FakeServer.answer)
  /// ```
  public init(asking ask: @escaping @Sendable (Question) async throws -> Answer) {
    save = { try await Self.ask(ask, .save($0, attempt: $1), expecting: Answer.errand) }
    create = { try await Self.ask(ask, .create(id: $0, title: $1), expecting: Answer.errand) }
    route = { try await Self.ask(ask, .route(stops: $0, attempt: $1), expecting: Answer.route) }
    status = { try await Self.ask(ask, .status(since: $0, attempt: $1), expecting: Answer.status) }
  }

  /// Asks `question` and takes the answer's payload when it is of the case `expected`.
  private static func ask<Value>(
    _ ask: @Sendable (Question) async throws -> Answer, _ question: Question,
    expecting expected: @escaping @Sendable (Value) -> Answer
  ) async throws -> Value {
    let answer = try await ask(question)
    guard let value = CasePath(expected).extract(from: answer) else {
      throw APIError.unexpectedAnswer(question: "\(question)", answer: "\(answer)")
    }
    return value
  }

  /// Answers `question` with this client's call for it.
  ///
  /// ```swift
  /// let answer = try await api.answer(.status(since: 0, attempt: 0))  // .status(…)
  /// ```
  public func answer(_ question: Question) async throws -> Answer {
    switch question {
    case let .save(errand, attempt): .errand(try await save(errand, attempt))
    case let .create(id, title): .errand(try await create(id, title))
    case let .route(stops, attempt): .route(try await route(stops, attempt))
    case let .status(since, attempt): .status(try await status(since, attempt))
    }
  }
}

/// The errands API's key. Live and in tests it is the app's `FakeServer`, deterministic and
/// driven by the clock dependency, so a test sets a `TestClock` and advances it.
///
/// `answer(_:with:)` and `asking(_:)` are the two halves of a dependency that another
/// process answers: the host answers each question with its own value, and a worker's
/// stand-in asks.
enum ErrandsAPIKey: AsyncCrossingDependencyKey {
  static let liveValue = ErrandsAPI(asking: FakeServer.answer)
  static let testValue = liveValue

  static func answer(_ question: ErrandsAPI.Question, with api: ErrandsAPI) async throws -> ErrandsAPI.Answer {
    try await api.answer(question)
  }

  static func asking(_ ask: @escaping @Sendable (ErrandsAPI.Question) async throws -> ErrandsAPI.Answer) -> ErrandsAPI {
    ErrandsAPI(asking: ask)
  }
}

extension DependencyValues {
  /// The errands app's server.
  public var errandsAPI: ErrandsAPI {
    get { self[ErrandsAPIKey.self] }
    set { self[ErrandsAPIKey.self] = newValue }
  }
}
