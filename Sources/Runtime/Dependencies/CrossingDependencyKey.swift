/// A dependency key whose value a worker process gets from the host: when a boundary runs in
/// a worker, each call the worker makes on the value is a question that the host answers with
/// its own value — the one a test overrode, or the host's test or live value. Calls made in a
/// worker therefore behave as they would in one process: an incrementing generator overridden
/// in a test hands out one sequence to the host and its workers alike.
///
/// `asking(_:)` builds the worker's stand-in, whose calls go through `ask`; `answer(_:with:)`
/// runs on the host, with the host's dependencies in force, and answers one such call.
/// Questions and answers cross as `Codable` values.
///
/// ```swift
/// public struct Greeter: Sendable {
///   public var greet: @Sendable (_ name: String) -> String
/// }
///
/// enum GreeterKey: CrossingDependencyKey {
///   static let liveValue = Greeter { "Hello, \($0)!" }
///   static let testValue = Greeter { _ in "Hi" }
///
///   static func answer(_ name: String, with greeter: Greeter) -> String { greeter.greet(name) }
///   static func asking(_ ask: @escaping @Sendable (String) -> String) -> Greeter { Greeter(greet: ask) }
/// }
/// ```
///
/// A key whose value is `Codable` crosses by value, with nothing to write but the
/// conformance: the worker asks once for the value in force and uses it.
///
/// ```swift
/// enum ThemeKey: CrossingDependencyKey {
///   static let liveValue = Theme.dark   // Theme: Codable
/// }
/// ```
///
/// The host finds a key by the name the worker sends: keep crossing keys `internal` or
/// `public` (a `private` key is found only once the host has read or set it itself).
public protocol CrossingDependencyKey: DependencyKey {
  /// What a worker's stand-in asks the host, for one call.
  associatedtype Question: Codable & Sendable
  /// What the host answers.
  associatedtype Answer: Codable & Sendable

  /// Answers `question` with `value`, the value in force on the host. Runs on the host.
  ///
  /// ```swift
  /// static func answer(_: ValueQuestion, with generator: UUIDGenerator) -> UUID { generator() }
  /// ```
  static func answer(_ question: Question, with value: Value) -> Answer

  /// The worker's stand-in for the value: every call asks the host through `ask`, which
  /// blocks until the host has answered.
  ///
  /// ```swift
  /// static func asking(_ ask: @escaping @Sendable (ValueQuestion) -> UUID) -> UUIDGenerator {
  ///   UUIDGenerator { ask(ValueQuestion()) }
  /// }
  /// ```
  static func asking(_ ask: @escaping @Sendable (Question) -> Answer) -> Value

  /// Whether a worker may make the live value itself, with no question to the host, when the
  /// host runs live and has not overridden the key: true for values that are the same
  /// anywhere (random UUIDs, the system's date). False by default.
  ///
  /// ```swift
  /// static var workerUsesItsOwnLiveValue: Bool { true }
  /// ```
  static var workerUsesItsOwnLiveValue: Bool { get }
}

extension CrossingDependencyKey {
  public static var workerUsesItsOwnLiveValue: Bool { false }
}

/// The question of a key that crosses by value: "what is your value?".
///
/// ```swift
/// let theme = ask(ValueQuestion())
/// ```
public struct ValueQuestion: Codable, Sendable, Hashable {
  public init() {}
}

extension CrossingDependencyKey where Value: Codable, Question == ValueQuestion, Answer == Value {
  /// The host's value itself.
  public static func answer(_: ValueQuestion, with value: Value) -> Value { value }

  /// The value the host answers, asked once: a worker makes its stand-ins once per set of
  /// dependency values the host sends.
  public static func asking(_ ask: @escaping @Sendable (ValueQuestion) -> Value) -> Value {
    ask(ValueQuestion())
  }
}
