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
public protocol DependencyKey: SendableMetatype {
  associatedtype Value: Sendable
  /// The value used by a `Store`.
  static var liveValue: Value { get }
  /// The value used by a `TestStore`; the live value unless the key says otherwise.
  static var testValue: Value { get }
}

extension DependencyKey {
  /// No test value: the live value, with a runtime warning that fails the test that used it,
  /// since a live dependency in a test can reach the network, the disk or the real clock.
  public static var testValue: Value {
    let name = readableName(of: Self.self)
    RuntimeWarning.report(
      """
      The dependency \(name) has no test value, and a test used it: its live value ran instead.

      Live dependencies are not allowed in tests, where they can reach the network, the disk or \
      the real clock. To fix it, override the dependency where the test sets up its store \
      ("TestStore(…) { … } withDependencies: { $0.… = … }"), or give \(name) a \
      "static let testValue".
      """, at: SourceLocation(fileID: #fileID, line: #line))
    return liveValue
  }
}

/// `key`'s name as a person reads it: its module and enclosing types, without the
/// "(unknown context at $…)" that the runtime writes for a private type's scope.
package func readableName(of key: Any.Type) -> String {
  String(reflecting: key).replacing(/\(unknown context at \$[0-9a-f]+\)\./, with: "")
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
  /// The values bound by the innermost `withValues`, or the defaults.
  @TaskLocal private static var bound = DependencyValues()

  /// The dependencies in force: those bound by the innermost `withValues`, unless a store is
  /// processing an action on this thread and nothing was bound since it began; then that
  /// store's (see `StoreDependencies`).
  package static var current: DependencyValues {
    StoreDependencies.values() ?? $bound.get()
  }

  /// Runs `operation` with `values` in force.
  package static func withValues<Result>(
    _ values: DependencyValues, operation: () throws -> Result
  ) rethrows -> Result {
    let isInsideSend = StoreDependencies.bindingBegins()
    defer { if isInsideSend { StoreDependencies.bindingEnds() } }
    return try $bound.withValue(values, operation: operation)
  }

  /// Runs `operation` with `values` in force. No store is ever processing an action around
  /// it on its thread: a store processes synchronously, and nothing synchronous can await.
  package static func withValues<Result>(
    _ values: DependencyValues, isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> Result
  ) async rethrows -> Result {
    try await $bound.withValue(values, operation: operation, isolation: isolation)
  }

  /// One overridden value, with its key, so that a boundary can tell what crosses.
  private struct Override: Sendable {
    let value: any Sendable
    let key: any DependencyKey.Type
  }

  private var overrides: [ObjectIdentifier: Override] = [:]
  private var defaults = DefaultValues()
  /// While `update(_:)` runs: the defaults it read, held until it ends.
  private var heldDefaults: HeldDefaults?

  /// Changes on every change to these values (an override set, the context set, fresh
  /// defaults), and is unique in the process: two values with the same revision are copies of
  /// one another. A boundary compares it to tell, without comparing values, whether the
  /// dependencies a worker has are still the host's.
  package private(set) var revision = Self.nextRevision()

  /// In a worker: the host's answers for the keys that cross. Nil everywhere else. Setting
  /// it is a change like any other: a worker that places workers of its own tells them of its
  /// values by revision, and the host's answers of a later header are new values for them.
  package var host: (any HostAnsweredValues)? {
    didSet { revision = Self.nextRevision() }
  }

  /// While a feature's body is built: the log of the dependencies it reads. Not a change of
  /// values, so the revision stays.
  var reads: DependencyReads?

  /// Live or test values for the keys that are not overridden.
  public var context: DependencyContext = .live {
    didSet {
      defaults = DefaultValues()
      revision = Self.nextRevision()
    }
  }

  public init() {}

  /// The value for `key`: its override if there is one, else (in a worker) the host's
  /// answer, else its live or test value. A default value is made once per store, so that
  /// stateful ones (an incrementing UUID generator) keep their state across actions.
  public subscript<Key: DependencyKey>(key: Key.Type) -> Key.Value {
    get {
      reads?.note()
      let id = ObjectIdentifier(key)
      if let value = overrides[id]?.value as? Key.Value { return value }
      if let host, let value = host.value(for: key) { return value }
      if let heldDefaults {
        return heldDefaults.value(for: id, of: defaults) { Self.makeDefault(key, context) }
      }
      return defaults.value(for: id) { Self.makeDefault(key, context) }
    }
    set {
      heldDefaults?.replace(ObjectIdentifier(key))
      overrides[ObjectIdentifier(key)] = Override(value: newValue, key: key)
      revision = Self.nextRevision()
    }
  }

  private static func makeDefault<Key: DependencyKey>(
    _ key: Key.Type, _ context: DependencyContext
  ) -> Key.Value {
    // A key this process uses is one a worker may ask it about.
    CrossingKeys.register(ifCrossing: key)
    return context == .test ? Key.testValue : Key.liveValue
  }

  /// Runs `body` on these values as an update: a default it reads only to replace it does not
  /// count as a use, since assigning through a key path (`$0[keyPath: \.apiClient] = …`, the
  /// `dependency` modifier) reads the old value first. A default it reads and keeps counts
  /// when the update ends, warning then if it has no test value.
  ///
  /// ```swift
  /// values.update { $0[keyPath: keyPath] = value }
  /// ```
  package mutating func update(_ body: (inout Self) throws -> Void) rethrows {
    let held = HeldDefaults()
    let outer = heldDefaults
    heldDefaults = held
    defer {
      heldDefaults = outer
      held.end()
    }
    try body(&self)
  }

  /// The same values with fresh defaults, for a new store.
  package func withFreshDefaults() -> DependencyValues {
    var values = self
    values.defaults = DefaultValues()
    values.revision = Self.nextRevision()
    return values
  }

  /// The names (as `CrossingKeys.name(of:)` gives them) of the overridden keys that cross
  /// and of those that cannot; keys that each process makes for itself are in neither.
  package func overriddenKeyNames() -> (crossing: [String], stayingHere: [String]) {
    var crossing: [String] = []
    var stayingHere: [String] = []
    for override in overrides.values {
      if CrossingKeys.crosses(override.key) {
        CrossingKeys.register(override.key)
        crossing.append(CrossingKeys.name(of: override.key))
      } else if !(override.key is any ProcessLocalDependencyKey.Type) {
        stayingHere.append(CrossingKeys.name(of: override.key))
      }
    }
    return (crossing.sorted(), stayingHere.sorted())
  }

  private static let revisions = Atomic<UInt64>(0)

  private static func nextRevision() -> UInt64 {
    revisions.wrappingAdd(1, ordering: .relaxed).newValue
  }
}

/// A key whose value each process makes for itself, so that an override on the host needs
/// no crossing: the boundary gives the worker its own equivalent (the host's clock, the
/// dismissal through the boundary).
protocol ProcessLocalDependencyKey: DependencyKey {}

/// A worker's view of the host's dependency values for the keys the host answers.
package protocol HostAnsweredValues: Sendable {
  /// The worker's value for `key` when the host answers for it; nil when the worker makes
  /// its own (the key does not cross, or it is live and the same anywhere).
  func value<Key: DependencyKey>(for key: Key.Type) -> Key.Value?
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
  try values.update(update)
  return try DependencyValues.withValues(values, operation: operation)
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
