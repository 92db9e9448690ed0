import Foundation
import Synchronization

/// Makes UUIDs: random ones live, and predictable ones in tests.
///
/// ```swift
/// @Dependency(\.uuid) var uuid
/// state.todos.append(Todo(id: uuid()))
/// ```
public struct UUIDGenerator: Sendable {
  private let generate: @Sendable () -> UUID

  public init(_ generate: @escaping @Sendable () -> UUID) { self.generate = generate }

  public func callAsFunction() -> UUID { generate() }

  /// Random version 4 UUIDs.
  public static let random = UUIDGenerator { UUID() }

  /// UUIDs counting up from `00000000-0000-0000-0000-000000000000`, one per call.
  public static var incrementing: UUIDGenerator {
    let counter = Mutex<UInt64>(0)
    return UUIDGenerator {
      let value = counter.withLock { value in
        defer { value += 1 }
        return value
      }
      return UUID(uuidString: String(format: "00000000-0000-0000-0000-%012llX", value))!
    }
  }
}

extension DependencyValues {
  /// The UUID generator; random live, incrementing in tests.
  public var uuid: UUIDGenerator {
    get { self[UUIDGeneratorKey.self] }
    set { self[UUIDGeneratorKey.self] = newValue }
  }
}

/// Crosses: a worker's UUIDs come from the host's generator, so that an incrementing one
/// hands out one sequence to the host and its workers; live and not overridden, a worker
/// makes random ones itself.
enum UUIDGeneratorKey: CrossingDependencyKey {
  static let liveValue = UUIDGenerator.random
  static var testValue: UUIDGenerator { .incrementing }
  static var workerUsesItsOwnLiveValue: Bool { true }

  static func answer(_: ValueQuestion, with generator: UUIDGenerator) -> UUID { generator() }

  static func asking(_ ask: @escaping @Sendable (ValueQuestion) -> UUID) -> UUIDGenerator {
    UUIDGenerator { ask(ValueQuestion()) }
  }
}
