/// A dependency key whose client has `async` calls (an API client) and whose value a worker
/// process gets from the host: each call the worker makes is a question the host answers
/// asynchronously, with its own value in force (a test's override, or the host's test or live
/// value). The worker's effect waits for the answer suspended, holding no thread, so its other
/// effects and its reducer go on meanwhile; cancelling the effect cancels the host's call.
///
/// An error the host's client throws is thrown in the worker: the same value when its type is
/// `Codable` (and the worker's code has it), otherwise an error that names the type and
/// describes it. A worker whose host is gone throws rather than waits.
///
/// ```swift
/// public struct QuoteClient: Sendable {
///   public var fetch: @Sendable (_ name: String) async throws -> String
/// }
///
/// enum QuoteClientKey: AsyncCrossingDependencyKey {
///   static let liveValue = QuoteClient { name in try await server.quote(for: name) }
///   static let testValue = QuoteClient { name in "A quote for \(name)" }
///
///   static func answer(_ name: String, with client: QuoteClient) async throws -> String {
///     try await client.fetch(name)
///   }
///   static func asking(_ ask: @escaping @Sendable (String) async throws -> String) -> QuoteClient {
///     QuoteClient(fetch: ask)
///   }
/// }
/// ```
///
/// A client with several calls makes `Question` an enum with a case per call, and `Answer`
/// one too (or a type they share). A client with calls that return streams conforms to
/// `StreamingCrossingDependencyKey` instead.
public protocol AsyncCrossingDependencyKey: DependencyKey {
  /// What a worker's stand-in asks the host, for one call.
  associatedtype Question: Codable & Sendable
  /// What the host answers.
  associatedtype Answer: Codable & Sendable

  /// Answers `question` with `value`, the value in force on the host. Runs on the host, in a
  /// task of its own, with the host's dependencies (of the request the asking effect came
  /// from) in force: a sleep on `continuousClock` sleeps on the test's clock.
  ///
  /// ```swift
  /// static func answer(_ name: String, with client: QuoteClient) async throws -> String {
  ///   try await client.fetch(name)
  /// }
  /// ```
  static func answer(_ question: Question, with value: Value) async throws -> Answer

  /// The worker's stand-in for the value: every call asks the host through `ask`, which
  /// returns the host's answer, throws what the host's client threw, or throws
  /// `CancellationError` when the calling task is cancelled.
  ///
  /// ```swift
  /// static func asking(_ ask: @escaping @Sendable (String) async throws -> String) -> QuoteClient {
  ///   QuoteClient(fetch: ask)
  /// }
  /// ```
  static func asking(_ ask: @escaping @Sendable (Question) async throws -> Answer) -> Value
}

/// An `AsyncCrossingDependencyKey` whose client also has calls that return a stream
/// (`AsyncStream`, `AsyncThrowingStream`): the worker's stand-in asks one question, and the
/// host answers it with a stream of answers, which it finishes, or ends by throwing. The
/// worker's stream ends when the host's does; a worker that stops iterating, or whose task is
/// cancelled, cancels the host's.
///
/// ```swift
/// enum TickerKey: StreamingCrossingDependencyKey {
///   static let liveValue = Ticker(price: { … }, prices: { … })
///
///   static func answer(_ symbol: String, with ticker: Ticker) async throws -> Double {
///     try await ticker.price(symbol)
///   }
///   static func answers(_ symbol: String, with ticker: Ticker) -> AsyncThrowingStream<Double, any Error> {
///     ticker.prices(symbol)
///   }
///   static func asking(
///     _ ask: @escaping @Sendable (String) async throws -> Double,
///     streaming: @escaping @Sendable (String) -> AsyncThrowingStream<Double, any Error>
///   ) -> Ticker {
///     Ticker(price: ask, prices: streaming)
///   }
/// }
/// ```
public protocol StreamingCrossingDependencyKey: AsyncCrossingDependencyKey {
  /// Answers `question` with a stream of answers from `value`, the value in force on the
  /// host, as `answer(_:with:)` does with one.
  ///
  /// ```swift
  /// static func answers(_ symbol: String, with ticker: Ticker) -> AsyncThrowingStream<Double, any Error> {
  ///   ticker.prices(symbol)
  /// }
  /// ```
  static func answers(_ question: Question, with value: Value) -> AsyncThrowingStream<Answer, any Error>

  /// The worker's stand-in: a call that returns one answer asks through `ask`, one that
  /// returns a stream through `streaming`. (A non-throwing `AsyncStream` is made from the
  /// throwing one; an error then ends it.)
  ///
  /// ```swift
  /// static func asking(
  ///   _ ask: @escaping @Sendable (String) async throws -> Double,
  ///   streaming: @escaping @Sendable (String) -> AsyncThrowingStream<Double, any Error>
  /// ) -> Ticker {
  ///   Ticker(price: ask, prices: streaming)
  /// }
  /// ```
  static func asking(
    _ ask: @escaping @Sendable (Question) async throws -> Answer,
    streaming: @escaping @Sendable (Question) -> AsyncThrowingStream<Answer, any Error>
  ) -> Value
}

extension StreamingCrossingDependencyKey {
  /// The stand-in whose streams are the one answer of `ask`. A worker always makes a
  /// streaming key's stand-in with `asking(_:streaming:)`: this is here so that such a key
  /// need not write the requirement it inherits.
  public static func asking(_ ask: @escaping @Sendable (Question) async throws -> Answer) -> Value {
    asking(ask) { question in
      AsyncThrowingStream { continuation in
        let call = Task {
          do {
            continuation.yield(try await ask(question))
            continuation.finish()
          } catch {
            continuation.finish(throwing: error)
          }
        }
        continuation.onTermination = { _ in call.cancel() }
      }
    }
  }
}
