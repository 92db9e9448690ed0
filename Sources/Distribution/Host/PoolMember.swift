import Bulkhead
import Dispatch
internal import Transport

/// One place in a boundary's pool of workers.
enum PoolMember {
  case empty
  /// A worker starting on another thread: the successor of a retired one.
  case starting(WorkerStart)
  case running(WorkerLink)

  var link: WorkerLink? {
    if case let .running(link) = self { return link }
    return nil
  }
}

/// A worker being started on another thread, so that retiring a worker never makes the host's
/// reducer wait for its successor unless an action needs it at once.
final class WorkerStart: Sendable {
  private let outcome = Locked<Result<WorkerLink, any Error>?>(nil)
  private let done = DispatchSemaphore(value: 0)

  init(_ launch: @escaping @Sendable () throws -> WorkerLink) {
    DetachedThread.run { [outcome, done] in
      let result = Result { try launch() }
      outcome.withLock { $0 = result }
      done.signal()
    }
  }

  /// Waits until the worker is ready, or its start failed.
  func wait() throws -> WorkerLink {
    done.wait()
    done.signal()
    guard let outcome = outcome.withLock({ $0 }) else {
      throw DistributionError.protocolViolation("a worker start signalled without an outcome")
    }
    return try outcome.get()
  }
}
