import Synchronization

/// The unused defaults that one `DependencyValues.update(_:)` read: one it then assigned over
/// was read only for the assignment (a key-path assignment reads the old value first) and
/// stays unused; one it kept is put in use when the update ends, warning then if it has no
/// test value.
///
/// ```swift
/// let held = HeldDefaults()
/// let client = held.value(for: id, of: defaults) { Key.testValue }  // not yet a use
/// held.replace(id)  // assigned over: never used
/// held.end()        // the others are used now
/// ```
final class HeldDefaults: Sendable {
  private struct State {
    var read: [ObjectIdentifier: DefaultValues] = [:]
    var hasEnded = false
  }

  private let state = Mutex(State())

  /// The default for `id` in `defaults`, made by `make` if it must be, and not yet used. Once
  /// the update has ended (a copy of the values taken during it lives on), simply a use.
  func value<Value: Sendable>(
    for id: ObjectIdentifier, of defaults: DefaultValues, make: () -> Value
  ) -> Value {
    if state.withLock({ $0.hasEnded }) { return defaults.value(for: id, make: make) }
    let (value, isUsed) = defaults.valueWithoutUse(for: id, make: make)
    if !isUsed { state.withLock { $0.read[id] = defaults } }
    return value
  }

  /// The update assigned a value to `id`: its default, if it read it, was not used.
  func replace(_ id: ObjectIdentifier) {
    state.withLock { _ = $0.read.removeValue(forKey: id) }
  }

  /// The update ended: each default it read and kept is used now.
  func end() {
    let kept = state.withLock { state in
      state.hasEnded = true
      defer { state.read = [:] }
      return state.read
    }
    for (id, defaults) in kept { defaults.use(id) }
  }
}
