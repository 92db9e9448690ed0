import Synchronization

/// The default dependency values made so far, shared by the copies of one store's values.
///
/// A default made because an update read it, which may be only to assign over it (as a
/// key-path assignment does), is kept apart as unused, with the warnings that making it
/// raised: made once, and counted — moved to the used ones, its warnings told — only when
/// something reads it for use.
final class DefaultValues: Sendable {
  private struct Unused {
    let value: any Sendable
    let warnings: [RuntimeWarning]
  }

  private struct Storage {
    var used: [ObjectIdentifier: any Sendable] = [:]
    var unused: [ObjectIdentifier: Unused] = [:]
  }

  private let storage = Mutex(Storage())

  /// The default for `id`, for use: the one in use, else an unused one (now used), else one
  /// made by `make`.
  func value<Value: Sendable>(for id: ObjectIdentifier, make: () -> Value) -> Value {
    if let value = storage.withLock({ $0.used[id] }) ?? use(id), let value = value as? Value {
      return value
    }
    let value = make()
    return storage.withLock { storage in
      if let winner = storage.used[id] as? Value { return winner }
      storage.used[id] = value
      return value
    }
  }

  /// The default for `id` for an update that may assign over it: the one in use, else an
  /// unused one, made by `make` the first time with its warnings held. `isUsed` says which.
  func valueWithoutUse<Value: Sendable>(
    for id: ObjectIdentifier, make: () -> Value
  ) -> (value: Value, isUsed: Bool) {
    let found = storage.withLock { storage in
      storage.used[id].map { ($0, true) } ?? storage.unused[id].map { ($0.value, false) }
    }
    if let (value, isUsed) = found, let value = value as? Value { return (value, isUsed) }
    let warnings = Mutex<[RuntimeWarning]>([])
    let made = withRuntimeWarningHandler({ warning in warnings.withLock { $0.append(warning) } }) {
      make()
    }
    return storage.withLock { storage in
      if let used = storage.used[id] as? Value { return (used, true) }
      if let unused = storage.unused[id]?.value as? Value { return (unused, false) }
      storage.unused[id] = Unused(value: made, warnings: warnings.withLock { $0 })
      return (made, false)
    }
  }

  /// Puts the unused default for `id`, if there is one, in use, and tells the warnings that
  /// making it raised; returns it.
  @discardableResult
  func use(_ id: ObjectIdentifier) -> (any Sendable)? {
    let unused = storage.withLock { storage -> Unused? in
      guard let unused = storage.unused.removeValue(forKey: id) else { return nil }
      storage.used[id] = unused.value
      return unused
    }
    for warning in unused?.warnings ?? [] { RuntimeWarning.report(warning.message, at: warning.location) }
    return unused?.value
  }
}
