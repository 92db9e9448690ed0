import Bulkhead
import BulkheadDistribution
import Synchronization

/// Watches every action a scripted app's root reducer runs, numbered from 0: the study tools
/// time each one and inject faults between them. A remote boundary's reducer waits for its
/// worker, so an action's time is what it cost wherever its boundaries run.
///
/// ```swift
/// let observer = RootObserver(willReduce: { index in if index == 3 { inject() } },
///                             didReduce: { index, duration in times.append(duration) })
/// await app.run(within: context, hold: nil, observer: observer) { print($0) }
/// ```
package struct RootObserver: Sendable {
  /// Before action `index` runs.
  let willReduce: @Sendable (Int) -> Void
  /// After action `index` ran, with the time its reducers took.
  let didReduce: @Sendable (Int, Duration) -> Void

  package init(willReduce: @escaping @Sendable (Int) -> Void, didReduce: @escaping @Sendable (Int, Duration) -> Void) {
    self.willReduce = willReduce
    self.didReduce = didReduce
  }
}

/// A root reducer that reports each action it runs to a `RootObserver`, or just runs it.
struct ObservedRoot<Base: Reducer>: Reducer {
  let base: Base
  let observer: RootObserver?
  private let count = Counter()

  init(base: Base, observer: RootObserver?) {
    self.base = base
    self.observer = observer
  }

  func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    guard let observer else { return base.reduce(into: &state, action: action) }
    let index = count.next()
    observer.willReduce(index)
    let start = ContinuousClock.now
    let effect = base.reduce(into: &state, action: action)
    observer.didReduce(index, .now - start)
    return effect
  }

  /// Numbers the actions; shared by the reducer's copies.
  private final class Counter: Sendable {
    private let value = Atomic(0)

    func next() -> Int { value.add(1, ordering: .relaxed).oldValue }
  }
}
