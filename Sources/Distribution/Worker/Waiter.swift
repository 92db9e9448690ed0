import Dispatch
import Synchronization

/// Something in a worker that waits on the host: a suspended task, a blocked thread, or the
/// receiver of a stream.
///
/// ```swift
/// let resumption = await withCheckedContinuation { machine.handle(.waitForWindow(.task($0))) }
/// ```
enum Waiter: Sendable {
  /// An effect body's task, suspended: it holds no thread while it waits.
  case task(CheckedContinuation<Resumption, Never>)
  /// A thread blocked in a synchronous dependency call (`WorkerEffects.ask`).
  case thread(BlockedThread)
  /// Where the answers of a call that streams go, each as it comes, then its end: it is
  /// resumed many times, and holds no task or thread (`WorkerEffects.stream`).
  case receiver(@Sendable (Resumption) -> Void)

  /// Lets the waiter go on, told why.
  func resume(_ resumption: Resumption) {
    switch self {
    case let .task(continuation): continuation.resume(returning: resumption)
    case let .thread(thread): thread.resume(resumption)
    case let .receiver(receive): receive(resumption)
    }
  }
}

/// A thread waiting for the host's answer to a question its synchronous dependency call
/// asked. The worker's one wait that blocks a thread (see `WorkerEffects.ask`).
///
/// ```swift
/// let thread = BlockedThread()
/// machine.handle(.ask(revision: 1, key: key, question: bytes, .thread(thread)))
/// let resumption = thread.wait()
/// ```
final class BlockedThread: Sendable {
  private let resumption = Mutex<Resumption?>(nil)
  private let arrived = DispatchSemaphore(value: 0)

  /// Lets the waiting thread go on with `resumption`.
  func resume(_ resumption: Resumption) {
    self.resumption.withLock { $0 = resumption }
    arrived.signal()
  }

  /// Blocks the calling thread until `resume`.
  func wait() -> Resumption {
    arrived.wait()
    return resumption.withLock { $0 } ?? .answered(nil)
  }
}
