import Synchronization

/// What a worker's effect body sent for its proxy in the host, in order: the thread reading
/// the worker's effects connection pushes, the proxy's task takes all it holds at once.
///
/// Unlike an `AsyncStream`, a queue whose proxy stops early (its effect was cancelled) hands
/// back what it still held, so that the worker hears those actions were dropped: it counts
/// the actions the host has not acknowledged.
///
/// ```swift
/// let queue = DeliveryQueue<Int>()
/// _ = queue.push(1)
/// queue.finish()
/// while case let values = await queue.next(), !values.isEmpty { print(values) }  // [1]
/// ```
final class DeliveryQueue<Element: Sendable>: Sendable {
  private struct State {
    var buffer: [Element] = []
    var waiter: CheckedContinuation<[Element], Never>?
    /// Nothing more will be pushed: the body ended, or its worker is gone.
    var isFinished = false
    /// The proxy stopped taking: pushes are refused from now on.
    var isEnded = false

    mutating func takeAll() -> [Element] {
      defer { buffer.removeAll(keepingCapacity: true) }
      return buffer
    }
  }

  private let state = Mutex(State())

  /// Adds `element` behind the others; false when the proxy has stopped taking.
  func push(_ element: Element) -> Bool {
    let waiter = state.withLock { state -> CheckedContinuation<[Element], Never>?? in
      guard !state.isEnded, !state.isFinished else { return .none }
      if let waiter = state.waiter {
        state.waiter = nil
        return .some(waiter)
      }
      state.buffer.append(element)
      return .some(nil)
    }
    guard let waiter else { return false }
    waiter?.resume(returning: [element])
    return true
  }

  /// No more elements will come; those held are still taken.
  func finish() {
    let waiter = state.withLock { state in
      state.isFinished = true
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: [])
  }

  /// The next elements, all that are held, waiting for one if need be; none once finished and
  /// empty, or as soon as the calling task is cancelled (what is left stays for `end()`).
  func next() async -> [Element] {
    let ready = state.withLock { state -> [Element]? in
      if Task.isCancelled { return [] }
      return state.buffer.isEmpty ? nil : state.takeAll()
    }
    if let ready { return ready }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let ready = state.withLock { state -> [Element]? in
          if Task.isCancelled || state.isEnded { return [] }
          if !state.buffer.isEmpty { return state.takeAll() }
          if state.isFinished { return [] }
          state.waiter = continuation
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        defer { state.waiter = nil }
        return state.waiter
      }
      waiter?.resume(returning: [])
    }
  }

  /// Stops taking, and returns what was pushed and not taken.
  func end() -> [Element] {
    state.withLock { state in
      state.isEnded = true
      return state.takeAll()
    }
  }
}
