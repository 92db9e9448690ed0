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
