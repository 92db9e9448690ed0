import Synchronization

/// Where a host's reducer is in the tree while it runs, and which boundaries below run in
/// workers. Set by a composition around the root reducer; absent in a plain store, where every
/// boundary runs in place at the cost of one atomic load.
struct BoundaryContext: Sendable {
  @TaskLocal static var current: BoundaryContext?
  /// False until the process makes its first context: until then no reducer can be running
  /// under one, so boundaries skip reading the task-local `current`.
  static let isInUse = Atomic(false)

  let remotes: [String: RemoteBoundary]
  /// The dotted path of the boundary being run, empty at the root.
  let path: String

  init(remotes: [String: RemoteBoundary], path: String) {
    self.remotes = remotes
    self.path = path
    Self.isInUse.store(true, ordering: .releasing)
  }

  func reduce<Child: Reducer>(
    _ child: Child, named name: String?, element: (any Sendable)?,
    into state: inout Child.State, action: Child.Action
  ) -> Effect<Child.Action> {
    let path = BoundaryPath.joining(path, name ?? BoundaryPath.unnamed)
    if let remote = remotes[path] {
      return remote.reduce(Child.self, into: &state, action: action, element: element)
    }
    let inner = remotes.keys.contains { $0.hasPrefix(path + ".") }
      ? BoundaryContext(remotes: remotes, path: path) : nil
    return Self.$current.withValue(inner) { child.reduce(into: &state, action: action) }
  }

  /// Tells the workers of the boundary `name` that the child state of `element` (or its only
  /// child) left the host's state. Nothing to do in a plain store.
  static func childRemoved(
    atBoundary name: @autoclosure () -> String?, element: @autoclosure () -> (any Sendable)? = nil
  ) {
    guard let context = current else { return }
    let path = BoundaryPath.joining(context.path, name() ?? BoundaryPath.unnamed)
    context.remotes[path]?.remove(element: element())
  }
}

extension Reducer {
  /// Runs this reducer as the child at the boundary `name`: here, or in the worker that the
  /// composition's placement gives it.
  @inline(__always)
  func reduce(
    atBoundary name: @autoclosure () -> String?, element: @autoclosure () -> (any Sendable)? = nil,
    into state: inout State, action: Action
  ) -> Effect<Action> {
    guard BoundaryContext.isInUse.load(ordering: .acquiring), let context = BoundaryContext.current
    else { return reduce(into: &state, action: action) }
    return context.reduce(self, named: name(), element: element(), into: &state, action: action)
  }
}

/// The root reducer of a composition: runs `base` with the composition's boundaries in view.
public struct _ComposedReducer<Base: Reducer>: Reducer {
  let base: Base
  let context: BoundaryContext

  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    BoundaryContext.$current.withValue(context) { base.reduce(into: &state, action: action) }
  }
}
