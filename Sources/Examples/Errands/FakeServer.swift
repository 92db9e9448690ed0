import Bulkhead

/// The errands app's server, inside the app: it answers after a latency on the clock
/// dependency and sometimes refuses, both drawn from the question itself, so that the same
/// question gets the same answer at the same moment in any process and in every run, while
/// different questions answer out of order. It keeps no state: the app sends what it needs,
/// including how many times it tried before, so that trying again can succeed.
///
/// ```swift
/// FakeServer.latency(of: .status(since: 0, attempt: 0))  // .milliseconds(…), at most 400
/// FakeServer.refuses(.status(since: 0, attempt: 0))      // about one question in five
/// ```
public enum FakeServer {
  /// The longest a question takes.
  public static let longestLatency = Duration.milliseconds(400)

  /// Waits `latency(of: question)` on the clock dependency, then refuses with
  /// `APIError.unavailable` or answers.
  public static func answer(_ question: ErrandsAPI.Question) async throws -> ErrandsAPI.Answer {
    let clock = Dependency(\.continuousClock).wrappedValue
    try await clock.sleep(for: latency(of: question))
    if refuses(question) { throw APIError.unavailable }
    switch question {
    case var .save(errand, _):
      errand.revision += 1
      return .errand(errand)
    case let .create(id, title):
      return .errand(Errand(id: id, title: title, revision: 1))
    case let .route(stops, _):
      return .route(stops.sorted { (fingerprint(of: $0), $0) < (fingerprint(of: $1), $1) })
    case let .status(since, _):
      return .status(ServerStatus(version: since + 1, message: "In sync at version \(since + 1)"))
    }
  }

  /// How long the server takes to answer `question`: 10 to 400 ms, in steps of 10.
  public static func latency(of question: ErrandsAPI.Question) -> Duration {
    .milliseconds(10 * (1 + fingerprint(of: question) % 40))
  }

  /// Whether the server refuses `question`: about one in five.
  public static func refuses(_ question: ErrandsAPI.Question) -> Bool {
    (fingerprint(of: question) >> 16) % 5 == 0
  }

  /// A hash of `value`'s description that is the same in every process and run (FNV-1a),
  /// unlike `Hasher`, which is seeded per process.
  static func fingerprint(of value: some Sendable) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in "\(value)".utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    return hash
  }
}
