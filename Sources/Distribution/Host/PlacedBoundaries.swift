import Bulkhead

/// The boundaries a composition placed in workers, as the core's hook sees them: a child at
/// one of them runs in its workers, any other child in the host.
struct PlacedBoundaries: BoundaryRunner {
  let remotes: [String: RemoteBoundary]

  func reduce<Child: Reducer>(
    _ child: Child, atBoundary path: String, elements: [any Sendable],
    into state: inout Child.State, action: Child.Action
  ) -> Effect<Child.Action>? {
    remotes[path]?.reduce(Child.self, into: &state, action: action, elements: elements)
  }

  /// The placed boundary at `path` and every placed one inside it forget the children under
  /// `elements`: popping a stack screen ends the workers' copies of its `path.detail` too.
  func childRemoved(atBoundary path: String, elements: [any Sendable]) {
    for (placed, remote) in remotes where placed == path || placed.hasPrefix(path + ".") {
      remote.remove(under: elements)
    }
  }
}

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
