import Synchronization

/// Counts the proxies of one worker's effects from the moment the host's reducer makes one
/// until it is let go of (its body ended, was cancelled, or never started), and says when
/// none is left: a worker that a move to the host let go retires then, and not before a
/// proxy made by its last action has started its body.
///
/// ```swift
/// let token = tally.token()          // in the proxy's effect, which holds it
/// tally.whenNone { link.retire() }   // now, or when the last token goes
/// ```
final class ProxyTally: Sendable {
  private struct State {
    var alive = 0
    var whenNone: (@Sendable () -> Void)?
  }

  private let state = Mutex(State())

  /// Keeps the count up for as long as it lives.
  final class Token: Sendable {
    private let tally: ProxyTally

    fileprivate init(_ tally: ProxyTally) {
      self.tally = tally
      tally.state.withLock { $0.alive += 1 }
    }

    deinit { tally.ended() }
  }

  /// A token for a proxy being made.
  func token() -> Token { Token(self) }

  /// Runs `action` once no token lives: now, or when the last one goes.
  func whenNone(_ action: @escaping @Sendable () -> Void) {
    let now = state.withLock { state in
      guard state.alive > 0 else { return true }
      state.whenNone = action
      return false
    }
    if now { action() }
  }

  private func ended() {
    let action = state.withLock { state -> (@Sendable () -> Void)? in
      state.alive -= 1
      guard state.alive == 0 else { return nil }
      defer { state.whenNone = nil }
      return state.whenNone
    }
    action?()
  }
}
