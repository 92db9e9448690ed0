import Synchronization

/// The crossing dependency keys this process knows (`CrossingDependencyKey` and
/// `AsyncCrossingDependencyKey`), by the name a worker sends for them: how a host finds the key
/// a worker asks about.
///
/// A key is known once this process has read or set it (the built-ins from the start); any
/// other `internal` or `public` key is found by its mangled name through the Swift runtime.
/// A `private` key cannot be found that way, which is why reading or setting registers it.
package enum CrossingKeys {
  private static let known = Mutex<[String: any DependencyKey.Type]>(
    Dictionary(
      uniqueKeysWithValues: ([UUIDGeneratorKey.self, DateGeneratorKey.self] as [any DependencyKey.Type])
        .map { (name(of: $0), $0) }))

  /// The longest name looked up in the Swift runtime: far beyond any real key's, and short
  /// enough that a made-up name costs nothing to refuse.
  private static let longestName = 1_024

  /// The name that identifies `key` between processes built from the same code: its mangled
  /// name, which the Swift runtime can look up; for a private key, whose mangled name holds
  /// the address of its scope in this process (a `$` and a number that differs in every
  /// process), its readable name, found only once registered.
  package static func name(of key: any DependencyKey.Type) -> String {
    if let mangled = _mangledTypeName(key), !mangled.contains("$") { return mangled }
    return readableName(of: key)
  }

  /// Whether `key`'s value can be answered by the host, synchronously or not.
  package static func crosses(_ key: any DependencyKey.Type) -> Bool {
    key is any CrossingDependencyKey.Type || key is any AsyncCrossingDependencyKey.Type
  }

  /// Registers `key`, which crosses.
  static func register(_ key: any DependencyKey.Type) {
    let name = name(of: key)
    known.withLock { known in
      if known[name] == nil { known[name] = key }
    }
  }

  /// Registers `key` if it crosses.
  static func register<Key: DependencyKey>(ifCrossing key: Key.Type) {
    if crosses(key) { register(key) }
  }

  /// The crossing key named `name` (a `CrossingDependencyKey` or an
  /// `AsyncCrossingDependencyKey`), or nil when this process knows none by that name.
  ///
  /// The name comes from another process, so only a plain one goes to the Swift runtime:
  /// letters, digits and underscores, as the mangled name of an internal or public type is.
  /// Other bytes can be symbolic references, which the runtime follows as pointers, and a
  /// made-up one crashes it (`DependencyTableTests` found such names).
  package static func key(named name: String) -> (any DependencyKey.Type)? {
    if let key = known.withLock({ $0[name] }) { return key }
    guard name.utf8.count <= longestName, name.utf8.allSatisfy(isPlain),
      let key = _typeByName(name) as? any DependencyKey.Type, crosses(key)
    else { return nil }
    register(key)
    return key
  }

  private static func isPlain(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
      UInt8(ascii: "_"):
      true
    default: false
    }
  }
}
