import Synchronization

/// Makes the runtime build the metadata of types, as their first use in a process would: a
/// worker template names the types its forks would otherwise each build on their first
/// request, so that they inherit them.
///
/// Naming a type whose value then goes unused (`_ = ObjectIdentifier(T.self)`) is not enough:
/// the optimiser sees no effect in a metadata accessor and removes the call. Each type's
/// identity is stored where another thread could read it, which keeps it.
///
/// ```swift
/// TypeMetadata.make(Locked<Core>.self, Effect<Child.Action>.self)
/// ```
enum TypeMetadata {
  private static let lastMade = Atomic<Int>(0)

  static func make(_ types: any Any.Type...) {
    for type in types { lastMade.store(ObjectIdentifier(type).hashValue, ordering: .relaxed) }
  }
}
