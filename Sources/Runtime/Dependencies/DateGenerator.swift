import Foundation

/// Tells the current date: the system's live, a fixed one in tests.
///
/// ```swift
/// @Dependency(\.date) var date
/// state.createdAt = date.now
/// ```
public struct DateGenerator: Sendable {
  private let generate: @Sendable () -> Date

  public init(_ generate: @escaping @Sendable () -> Date) { self.generate = generate }

  public var now: Date { generate() }
  public func callAsFunction() -> Date { generate() }

  /// Always `date`.
  public static func constant(_ date: Date) -> DateGenerator { DateGenerator { date } }
}

extension DependencyValues {
  /// The current date; the system clock live, the reference date in tests.
  public var date: DateGenerator {
    get { self[DateGeneratorKey.self] }
    set { self[DateGeneratorKey.self] = newValue }
  }
}

/// Crosses: a worker's dates come from the host's generator; live and not overridden, a
/// worker reads the system's date itself.
enum DateGeneratorKey: CrossingDependencyKey {
  static let liveValue = DateGenerator { Date() }
  static let testValue = DateGenerator.constant(Date(timeIntervalSinceReferenceDate: 0))
  static var workerUsesItsOwnLiveValue: Bool { true }

  static func answer(_: ValueQuestion, with generator: DateGenerator) -> Date { generator() }

  static func asking(_ ask: @escaping @Sendable (ValueQuestion) -> Date) -> DateGenerator {
    DateGenerator { ask(ValueQuestion()) }
  }
}
