import Synchronization

/// The hook through which a composition runs children elsewhere: asked at every boundary below
/// a composed root reducer, it runs the child at a boundary it places (in a worker process,
/// for the distribution layer) and returns nil for one that runs here.
package protocol BoundaryRunner: Sendable {
  /// Runs `child` at the boundary `path` (dotted, from the root, as a user reads the action:
  /// `"path.detail"`) on `state`, and returns its effect; nil when the boundary runs here, in
  /// this process, which leaves `state` as it was. `elements` are the ids of the `forEach` and
  /// stack elements from the root down to the child, the boundary's own last when it is a
  /// `forEach` or a stack: empty for a boundary with one child, `[3]` for the child of stack
  /// element 3 (at `"path"` as at `"path.detail"`), `[row, item]` for a `forEach` in a row.
  func reduce<Child: Reducer>(
    _ child: Child, atBoundary path: String, elements: [any Sendable],
    into state: inout Child.State, action: Child.Action
  ) -> Effect<Child.Action>?

  /// The child at the boundary `path` with the element ids `elements` left this process's
  /// state, and with it every child below it: of the boundaries under `path`, those whose
  /// `elements` begin with these.
  func childRemoved(atBoundary path: String, elements: [any Sendable])

  /// The child at `path`, a boundary the runner places but whose `reduce` answered nil (it was
  /// moved to this process), ran here and took `duration`: for the runner's timings.
  func ranHere(atBoundary path: String, took duration: Duration)
}

extension BoundaryRunner {
  /// Does nothing: a runner that keeps no timings.
  package func ranHere(atBoundary path: String, took duration: Duration) {}
}

/// Where a host's reducer is in the tree while it runs, and which boundaries below run
/// elsewhere. Set by a composition around the root reducer; absent in a plain store, where
/// every boundary runs in place at the cost of one atomic load.
package struct BoundaryContext: Sendable {
  @TaskLocal static var current: BoundaryContext?
  /// False until the process makes its first context: until then no reducer can be running
  /// under one, so boundaries skip reading the task-local `current`.
  static let isInUse = Atomic(false)

  let runner: any BoundaryRunner
  /// The dotted paths of the boundaries that `runner` runs elsewhere.
  let placed: [String]
  /// The dotted path of the boundary being run, empty at the root.
  let path: String
  /// The ids of the `forEach` and stack elements from the root down to the child being run:
  /// a boundary inside a stack screen or a row is one per element, and says which.
  let elements: [any Sendable]

  /// The context of a composed root reducer: `runner` runs the boundaries at `placed`.
  package init(runner: any BoundaryRunner, placed: [String]) {
    self.init(runner: runner, placed: placed, path: "", elements: [])
  }

  private init(runner: any BoundaryRunner, placed: [String], path: String, elements: [any Sendable]) {
    self.runner = runner
    self.placed = placed
    self.path = path
    self.elements = elements
    Self.isInUse.store(true, ordering: .releasing)
  }

  /// Out of line: each boundary's caller already inlines the child for a plain store, and a
  /// second inlined copy here would double the code at every level of nesting.
  @inline(never)
  func reduce<Child: Reducer>(
    _ child: Child, named name: String?, element: (any Sendable)?,
    into state: inout Child.State, action: Child.Action
  ) -> Effect<Child.Action> {
    let path = BoundaryPath.joining(path, name ?? BoundaryPath.unnamed)
    let elements = element.map { self.elements + [$0] } ?? self.elements
    if let effect = runner.reduce(child, atBoundary: path, elements: elements, into: &state, action: action) {
      return effect
    }
    // One look at the placed boundaries: whether one lies inside this one, and whether this one
    // is placed itself — then the runner gave it back (it was moved to this process), and its
    // run here is timed, so that its latency reads the same wherever it runs.
    let prefix = path + "."
    var isPlaced = false
    var holdsPlaced = false
    for placed in placed {
      if placed == path { isPlaced = true } else if placed.hasPrefix(prefix) { holdsPlaced = true }
    }
    let inner = holdsPlaced ? BoundaryContext(runner: runner, placed: placed, path: path, elements: elements) : nil
    let start = isPlaced ? ContinuousClock.now : nil
    let effect = Self.$current.withValue(inner) { child.reduce(into: &state, action: action) }
    if let start { runner.ranHere(atBoundary: path, took: start.duration(to: .now)) }
    return effect
  }

  /// Tells the runner that the child state of `element` (or its only child) at the boundary
  /// `name` left the host's state, with every child inside it. Nothing to do in a plain store.
  static func childRemoved(
    atBoundary name: @autoclosure () -> String?, element: @autoclosure () -> (any Sendable)? = nil
  ) {
    guard let context = current else { return }
    let path = BoundaryPath.joining(context.path, name() ?? BoundaryPath.unnamed)
    let elements = element().map { context.elements + [$0] } ?? context.elements
    context.runner.childRemoved(atBoundary: path, elements: elements)
  }
}

extension Reducer {
  /// Runs this reducer as the child at the boundary `name`: here, or where the composition's
  /// runner places it.
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

  package init(base: Base, context: BoundaryContext) {
    self.base = base
    self.context = context
  }

  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    BoundaryContext.$current.withValue(context) { base.reduce(into: &state, action: action) }
  }
}
