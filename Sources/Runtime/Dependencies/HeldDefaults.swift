import Synchronization

/// The default values that one `DependencyValues.update(_:)` read, held until it ends: one it
/// then replaced was read only to be assigned over (a key-path assignment reads the old value
/// first) and is dropped unseen; one it kept is a use, recorded as made and warned about then.
///
/// ```swift
/// let held = HeldDefaults()
/// let client = held.value(for: id, of: defaults) { Key.testValue }  // warnings held
/// held.replace(id)  // assigned over: never used
/// held.end()        // the others are kept, and their warnings told
/// ```
final class HeldDefaults: Sendable {
  private struct Held {
    /// Records the value as made, in the store's defaults it was made for.
    let record: @Sendable () -> Void
    let value: any Sendable
    let warnings: [RuntimeWarning]
  }

  private struct State {
    var held: [ObjectIdentifier: Held] = [:]
    var hasEnded = false
  }

  private let state = Mutex(State())

  /// The default for `id`, made by `make` the first time with its warnings held back, and
  /// not yet recorded in `defaults`: read now, it may still be assigned over. Once the update
  /// has ended (a copy of the values taken during it lives on), simply the default.
  func value<Value: Sendable>(
    for id: ObjectIdentifier, of defaults: DefaultValues, make: () -> Value
  ) -> Value {
    let (value, hasEnded) = state.withLock { ($0.held[id]?.value, $0.hasEnded) }
    if hasEnded { return defaults.value(for: id, make: make) }
    if let value = value as? Value { return value }
    let warnings = Mutex<[RuntimeWarning]>([])
    let made = withRuntimeWarningHandler({ warning in warnings.withLock { $0.append(warning) } }) {
      make()
    }
    let held = Held(
      record: { _ = defaults.record(made, for: id) }, value: made, warnings: warnings.withLock { $0 })
    state.withLock { $0.held[id] = held }
    return made
  }

  /// The update assigned a value to `id`: its default, if it read it, was never used.
  func replace(_ id: ObjectIdentifier) {
    state.withLock { _ = $0.held.removeValue(forKey: id) }
  }

  /// The update ended: each default it read and kept is recorded as made, so that later
  /// reads share it, and its warnings are told.
  func end() {
    let kept = state.withLock { state in
      state.hasEnded = true
      defer { state.held = [:] }
      return state.held
    }
    for held in kept.values {
      held.record()
      for warning in held.warnings { RuntimeWarning.report(warning.message, at: warning.location) }
    }
  }
}
