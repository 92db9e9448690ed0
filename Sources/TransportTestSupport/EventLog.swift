import Synchronization

/// The events something reported, in order, and a way to wait for one without sleeping.
///
/// ```swift
/// let events = EventLog<ListenerEvent>()
/// let listener = try ActorListener(…, onEvent: events.append)
/// #expect(await events.first { if case .timedOut = $0 { true } else { false } } != nil)
/// ```
package final class EventLog<Event: Sendable>: Sendable {
  private struct Waiter {
    let predicate: @Sendable (Event) -> Bool
    let continuation: CheckedContinuation<Event?, Never>
  }

  private struct State {
    var events: [Event] = []
    var waiters: [Int: Waiter] = [:]
    var nextWaiter = 0
  }

  private let state = Mutex(State())
  private let react: @Sendable (Event) -> Void

  /// `react` runs on each event as it is reported, on the reporting thread, before waiters
  /// hear of it: for a test that plays a fault at an exact point.
  package init(react: @escaping @Sendable (Event) -> Void = { _ in }) {
    self.react = react
  }

  /// Every event so far.
  package var all: [Event] { state.withLock { $0.events } }

  @Sendable package func append(_ event: Event) {
    react(event)
    let ready = state.withLock { state in
      state.events.append(event)
      let ready = state.waiters.filter { $0.value.predicate(event) }
      for key in ready.keys { state.waiters[key] = nil }
      return ready.values.map(\.continuation)
    }
    for continuation in ready { continuation.resume(returning: event) }
  }

  /// The first event, past or future, for which `predicate` holds; nil if none comes within
  /// `deadline`, so that a missing event fails the test instead of hanging it.
  package func first(
    within deadline: Duration = .seconds(10),
    where predicate: @escaping @Sendable (Event) -> Bool
  ) async -> Event? {
    await withCheckedContinuation { continuation in
      let waiter = state.withLock { state -> Int? in
        if let past = state.events.first(where: predicate) {
          continuation.resume(returning: past)
          return nil
        }
        state.nextWaiter += 1
        state.waiters[state.nextWaiter] = Waiter(predicate: predicate, continuation: continuation)
        return state.nextWaiter
      }
      guard let waiter else { return }
      Task {
        try? await Task.sleep(for: deadline)
        state.withLock { $0.waiters.removeValue(forKey: waiter) }?.continuation.resume(returning: nil)
      }
    }
  }

  /// The `count`th event, past or future, for which `predicate` holds; nil if it does not come
  /// within `deadline`.
  package func nth(
    _ count: Int, within deadline: Duration = .seconds(10),
    where predicate: @escaping @Sendable (Event) -> Bool
  ) async -> Event? {
    // `first` asks the predicate once about each event, in order.
    let seen = Mutex(0)
    return await first(within: deadline) { event in
      guard predicate(event) else { return false }
      return seen.withLock { seen in
        seen += 1
        return seen == count
      }
    }
  }
}
