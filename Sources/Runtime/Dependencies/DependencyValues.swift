import Synchronization

/// A key for a dependency: its type and the values it has live and in tests.
///
/// ```swift
/// private enum APIClientKey: DependencyKey {
///   static let liveValue = APIClient.live
///   static let testValue = APIClient.unimplemented
/// }
/// extension DependencyValues {
///   var apiClient: APIClient {
///     get { self[APIClientKey.self] }
///     set { self[APIClientKey.self] = newValue }
///   }
/// }
/// ```
public protocol DependencyKey {
  associatedtype Value: Sendable
  /// The value used by a `Store`.
  static var liveValue: Value { get }
  /// The value used by a `TestStore`; the live value unless the key says otherwise.
  static var testValue: Value { get }
}

extension DependencyKey {
  public static var testValue: Value { liveValue }
}

/// Whether dependencies take their live or their test values.
public enum DependencyContext: Sendable {
  case live, test
}

/// The dependencies in force for the running reducer or effect.
///
/// Reducers read them with `@Dependency`; stores, tests and the `dependency` reducer
/// modifier override them for everything that runs below.
public struct DependencyValues: Sendable {
  @TaskLocal static var current = DependencyValues()

  private var overrides: [ObjectIdentifier: any Sendable] = [:]
  private var defaults = DefaultValues()

  /// Live or test values for the keys that are not overridden.
  public var context: DependencyContext = .live {
    didSet { defaults = DefaultValues() }
  }

  public init() {}

  /// The value for `key`: its override if there is one, else its live or test value. A
  /// default value is made once per store, so that stateful ones (an incrementing UUID
  /// generator) keep their state across actions.
  public subscript<Key: DependencyKey>(key: Key.Type) -> Key.Value {
    get {
      let id = ObjectIdentifier(key)
      if let value = overrides[id] as? Key.Value { return value }
      return defaults.value(for: id) { context == .test ? Key.testValue : Key.liveValue }
    }
    set { overrides[ObjectIdentifier(key)] = newValue }
  }

  /// The same values with fresh defaults, for a new store.
  func withFreshDefaults() -> DependencyValues {
    var values = self
    values.defaults = DefaultValues()
    return values
  }
}

/// The default dependency values made so far, shared by the copies of one store's values.
private final class DefaultValues: Sendable {
  private let values = Mutex<[ObjectIdentifier: any Sendable]>([:])

  func value<Value: Sendable>(for id: ObjectIdentifier, make: () -> Value) -> Value {
    if let value = values.withLock({ $0[id] }) as? Value { return value }
    let value = make()
    return values.withLock { values in
      if let winner = values[id] as? Value { return winner }
      values[id] = value
      return value
    }
  }
}

/// Runs `operation` with the dependencies changed by `update`.
///
/// ```swift
/// let uuid = withDependencies { $0.uuid = .incrementing } operation: { ... }
/// ```
public func withDependencies<Result>(
  _ update: (inout DependencyValues) throws -> Void,
  operation: () throws -> Result
) rethrows -> Result {
  var values = DependencyValues.current
  try update(&values)
  return try DependencyValues.$current.withValue(values, operation: operation)
}

/// Reads a dependency in a reducer or an effect.
///
/// ```swift
/// struct Timer: Reducer {
///   @Dependency(\.continuousClock) var clock
/// }
/// ```
@propertyWrapper
public struct Dependency<Value: Sendable>: Sendable {
  private let keyPath: KeyPath<DependencyValues, Value> & Sendable

  public init(_ keyPath: KeyPath<DependencyValues, Value> & Sendable) {
    self.keyPath = keyPath
  }

  /// The value in force where it is read.
  public var wrappedValue: Value { DependencyValues.current[keyPath: keyPath] }
}
