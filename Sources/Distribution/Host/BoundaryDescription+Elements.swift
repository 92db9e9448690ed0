import Bulkhead

extension [BoundaryDescription] {
  /// Whether the boundary at `path` has one child per element, which a pool can spread: it is
  /// a `forEach` (or a stack), or inside the elements of one (`path.detail`).
  ///
  /// ```swift
  /// Notes().boundaries.hasChildPerElement(at: "path.detail")  // true
  /// ```
  func hasChildPerElement(at path: String) -> Bool {
    contains { $0.kind == .forEach && ($0.path == path || path.hasPrefix($0.path + ".")) }
  }
}
