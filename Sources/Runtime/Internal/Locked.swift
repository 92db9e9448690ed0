import Foundation

/// A value that threads reach only through a lock, for values that are not `Sendable` but
/// must be shared: a socket's connection object, the host's bookkeeping of child states.
///
/// Unlike `Mutex`, it lets values that are not `Sendable` in and out. Use it only where what
/// crosses is either confined to the lock or copied on the way out (value types).
package final class Locked<Value>: @unchecked Sendable {
  // Safe: `value` is read and written only inside `withLock`, under `lock`.
  private var value: Value
  private let lock = NSLock()

  package init(_ value: Value) { self.value = value }

  /// Runs `body` only if the lock is free now; nil when another thread holds it.
  package func withLockIfAvailable<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result? {
    guard lock.try() else { return nil }
    defer { lock.unlock() }
    return try body(&value)
  }

  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
