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
