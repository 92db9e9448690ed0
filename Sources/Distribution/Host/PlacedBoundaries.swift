import Bulkhead
import Synchronization

/// The boundaries a composition placed in workers, as the core's hook sees them: a child at
/// one of them runs in its workers, any other child in the host.
///
/// Each is made for one composed root reducer, which is one store's: its `lineage` names
/// that store's states to the boundaries, whose records of what a worker has seen hold for
/// the lineage they were made for only. Another store on the same composition brings the
/// workers' copies up to date from its own state, however equal (`==`) the states look.
struct PlacedBoundaries: BoundaryRunner {
  let remotes: [String: RemoteBoundary]
  let lineage: UInt64

  /// Lineages handed out so far in this process, so that none is named twice.
  private static let lineages = Atomic<UInt64>(0)

  init(remotes: [String: RemoteBoundary]) {
    self.remotes = remotes
    lineage = Self.lineages.add(1, ordering: .relaxed).newValue
  }

  func reduce<Child: Reducer>(
    _ child: Child, atBoundary path: String, elements: [any Sendable],
    into state: inout Child.State, action: Child.Action
  ) -> Effect<Child.Action>? {
    // A boundary moved to the host answers nil too, and runs here.
    remotes[path]?.reduce(Child.self, into: &state, action: action, elements: elements, lineage: lineage)
  }

  func ranHere(atBoundary path: String, took duration: Duration) {
    remotes[path]?.ranInHost(took: duration)
  }

  /// The placed boundary at `path` and every placed one inside it forget the children under
  /// `elements`: popping a stack screen ends the workers' copies of its `path.detail` too.
  func childRemoved(atBoundary path: String, elements: [any Sendable]) {
    for (placed, remote) in remotes where placed == path || placed.hasPrefix(path + ".") {
      remote.remove(under: elements)
    }
  }
}
