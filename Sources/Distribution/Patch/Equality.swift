import Glibc

/// Whether two values are equal, when their type is `Equatable`; nil when it is not. The
/// values must have the same type for the answer to be true.
func areEqual(_ lhs: Any, _ rhs: Any) -> Bool? {
  guard let lhs = lhs as? any Equatable else { return nil }
  return lhs.isEqual(toAny: rhs)
}

extension Equatable {
  fileprivate func isEqual(toAny other: Any) -> Bool {
    guard let other = other as? Self else { return false }
    return self == other
  }
}

/// Comparisons made once per type, for values behind pointers.
enum Equality {
  /// Whether the values of type `Value` at two pointers are equal: by `==` when the type is
  /// `Equatable`, by their bytes when it is trivial (equal bytes are the same value; a type
  /// whose `==` says more only costs a patch it did not need); nil when neither.
  static func of<Value>(_: Value.Type) -> (@Sendable (UnsafeRawPointer, UnsafeRawPointer) -> Bool)? {
    if let equatable = Value.self as? any (Equatable & SendableMetatype).Type { return comparing(equatable) }
    guard _isPOD(Value.self) else { return nil }
    let size = MemoryLayout<Value>.size
    return { old, new in memcmp(old, new, size) == 0 }
  }

  private static func comparing<Value: Equatable & SendableMetatype>(_: Value.Type) -> @Sendable (UnsafeRawPointer, UnsafeRawPointer) -> Bool {
    { old, new in old.assumingMemoryBound(to: Value.self).pointee == new.assumingMemoryBound(to: Value.self).pointee }
  }
}
