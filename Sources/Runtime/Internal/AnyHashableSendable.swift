/// A type-erased hashable value that is also `Sendable`.
package struct AnyHashableSendable: Hashable, @unchecked Sendable {
  // Safe: values only get in as `Sendable` values, or as key paths and ids (see below), and
  // are only ever hashed and compared.
  package let base: AnyHashable

  package init(_ base: some Hashable & Sendable) {
    self.base = AnyHashable(base)
  }

  /// Wraps a key path. Key path objects are immutable once formed, so hashing and comparing
  /// one from several threads is safe.
  init(keyPath: AnyKeyPath) {
    self.base = AnyHashable(keyPath)
  }

  /// Wraps the id of an identifiable child state. Ids are values (integers, UUIDs, strings)
  /// that are only hashed and compared.
  init(id: some Hashable) {
    self.base = AnyHashable(id)
  }
}
