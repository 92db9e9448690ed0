import Synchronization
internal import Transport

/// What the watch thread (`ConnectionWatch.effects`) sends one worker: written at once while
/// the socket has room, else queued, in order, for a thread of their own, which writes them
/// as the worker reads and is gone once they are written. A worker that stopped reading thus
/// never holds up the watch, which reads every other worker's effects.
///
/// Only the watch thread sends through it, so that its messages keep their order.
final class WatchOutbox<Message: Sendable>: Sendable {
  private struct Queue {
    var messages: [Message] = []
    /// A thread writes what is queued; messages sent meanwhile queue behind it.
    var isFlushing = false
  }

  private let queue = Mutex(Queue())
  /// Writes messages, waiting as long as the socket's send timeout allows, and handles the
  /// failure of the write.
  private let write: @Sendable ([Message]) -> Void

  init(write: @escaping @Sendable ([Message]) -> Void) {
    self.write = write
  }

  /// Writes `messages` now if nothing is queued and `hasRoom()`, else queues them.
  func send(_ messages: [Message], hasRoom: () -> Bool) {
    let startsFlushing = queue.withLock { queue -> Bool? in
      guard queue.isFlushing || !hasRoom() else { return nil }
      queue.messages += messages
      defer { queue.isFlushing = true }
      return !queue.isFlushing
    }
    switch startsFlushing {
    case nil: write(messages)
    case true?: DetachedThread.run { [self] in flush() }
    case false?: break
    }
  }

  /// Writes what is queued until nothing is.
  private func flush() {
    while let messages = queue.withLock({ queue -> [Message]? in
      guard !queue.messages.isEmpty else {
        queue.isFlushing = false
        return nil
      }
      defer { queue.messages = [] }
      return queue.messages
    }) {
      write(messages)
    }
  }
}
