import Dispatch

/// One place in a boundary's pool of workers, each held as a `Link`.
enum PoolMember<Link: AnyObject> {
  /// No worker: before the pool starts, and once the boundary has failed or stopped.
  case empty
  /// A worker starting on a thread of its own: the successor of one that failed or retired.
  case starting(WorkerStart)
  case running(Link)
  /// No worker until its child is next presented: the action that needs one claims it from
  /// the composition's warm pool.
  case vacant

  var link: Link? {
    if case let .running(link) = self { return link }
    return nil
  }

  var isVacant: Bool {
    if case .vacant = self { return true }
    return false
  }

  /// Whether `self` is the very worker, or the very start, that `other` is: a failure noticed
  /// by several callers is given up by the first only.
  func isSame(as other: PoolMember) -> Bool {
    switch (self, other) {
    case let (.running(link), .running(otherLink)): link === otherLink
    case let (.starting(start), .starting(otherStart)): start === otherStart
    default: false
    }
  }
}

/// A worker being started on another thread, so that neither a restart nor a retirement makes
/// the host's reducer wait for the successor unless an action needs it at once. Whoever
/// needs it waits for the start to end, then finds its worker, or the successor of a start
/// that failed, in the pool.
final class WorkerStart: Sendable {
  private let ended = DispatchSemaphore(value: 0)

  /// Waits until the start has ended.
  func wait() {
    ended.wait()
    // Passes the signal on to the next waiter.
    ended.signal()
  }

  /// Ends the start and wakes every waiter.
  func finish() {
    ended.signal()
  }
}
