import Bulkhead

/// The boundaries a composition placed in workers, as the core's hook sees them: a child at
/// one of them runs in its workers, any other child in the host.
struct PlacedBoundaries: BoundaryRunner {
  let remotes: [String: RemoteBoundary]

  func reduce<Child: Reducer>(
    _ child: Child, atBoundary path: String, element: (any Sendable)?,
    into state: inout Child.State, action: Child.Action
  ) -> Effect<Child.Action>? {
    remotes[path]?.reduce(Child.self, into: &state, action: action, element: element)
  }

  func childRemoved(atBoundary path: String, element: (any Sendable)?) {
    remotes[path]?.remove(element: element)
  }
}
