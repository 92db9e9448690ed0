#if canImport(Glibc)
  import Glibc
#endif
import Synchronization
internal import Transport

/// The signals that stop a host: Ctrl-C (SIGINT), SIGTERM, and SIGHUP (its terminal closed).
///
/// Caught from the moment this is made, before the host starts a worker, so that none is lost
/// or ends the host without stopping its workers and removing its sockets and run file,
/// however early it comes. What the first one does is given once the host can do it
/// (`arm`); one that came before is acted on then. Later ones change nothing: the first one's
/// stop is under way.
///
/// ```swift
/// let stops = try StopSignals()
/// // … start the workers …
/// stops.arm { number in stop(because: StopSignals.name(of: number)) }
/// ```
final class StopSignals: Sendable {
  private enum State {
    case waiting(caught: Int32?)
    case armed(@Sendable (Int32) -> Void)
    case over
  }

  private let state = Mutex(State.waiting(caught: nil))
  private static let names = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP"]

  init() throws(TransportError) {
    // The process keeps the handlers, and so this, as long as it runs.
    try EndingSignals.handle(Array(Self.names.keys)) { [self] number in caught(number) }
  }

  /// The signal's name, as a person reads it in the host's output.
  static func name(of number: Int32) -> String { names[number] ?? "signal \(number)" }

  /// From now on the first signal runs `stop`, on the signals' thread; if one came already,
  /// runs it now, on this thread.
  func arm(_ stop: @escaping @Sendable (_ signal: Int32) -> Void) {
    let caught = state.withLock { state -> Int32? in
      guard case let .waiting(caught) = state else { return nil }
      state = caught == nil ? .armed(stop) : .over
      return caught
    }
    if let caught { stop(caught) }
  }

  /// The host is stopping on its own (its script ended): a signal from now on changes nothing.
  func disarm() { state.withLock { $0 = .over } }

  private func caught(_ number: Int32) {
    let stop = state.withLock { state -> (@Sendable (Int32) -> Void)? in
      switch state {
      case .waiting(nil):
        state = .waiting(caught: number)
        return nil
      case let .armed(stop):
        state = .over
        return stop
      case .waiting, .over:
        return nil
      }
    }
    stop?(number)
  }
}
