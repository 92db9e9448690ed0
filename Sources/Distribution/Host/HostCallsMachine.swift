/// The host's side of a worker's async calls on crossing dependencies
/// (`AsyncCrossingDependencyKey`), as a state machine: each call the worker made is answered
/// by a task of its own (`Running`), which the worker may cancel, and which the end of the
/// connection cancels. It takes events (a call, its task begun, the worker's cancel, the task's
/// end, the connection's end) and returns `Command`s; `HostEffects` keeps it behind a lock of
/// its own and performs them outside it. Drawn in docs/state-machines.md, "Async calls".
///
/// ```swift
/// var machine = HostCallsMachine<Task<Void, Never>>()
/// machine.asked(call)          // → [.start(call)]
/// machine.began(call.token, task)
/// machine.finished(call.token) // → true: send the end
/// ```
struct HostCallsMachine<Running> {
  /// Where a call stands.
  enum Call {
    /// Its task is being made; the worker may cancel it meanwhile.
    case starting(cancelled: Bool)
    case running(Running, cancelled: Bool)

    var isCancelled: Bool {
      switch self {
      case let .starting(cancelled), let .running(_, cancelled): cancelled
      }
    }
  }

  enum Command {
    /// Answer `call` in a task, then report `began`.
    case start(Wire.Call)
    case cancel(Running)
    /// The worker broke the protocol: give it up.
    case fail(RestartReason)
  }

  private(set) var open: [UInt64: Call] = [:]
  /// The highest token asked about: the worker cancels only calls it sent, so a cancel of a
  /// later one is made up. (Tokens may arrive out of order: a worker's tasks take them first
  /// and send them after.)
  private(set) var highestToken: UInt64 = 0
  /// The connection ended: every call was cancelled, and later ones are not answered.
  private(set) var isEnded = false

  /// Event: the worker made `call`.
  mutating func asked(_ call: Wire.Call) -> [Command] {
    guard !isEnded else { return [] }
    guard open[call.token] == nil else { return [.fail(.brokeProtocol(.callNamedTwice(token: call.token)))] }
    highestToken = max(highestToken, call.token)
    open[call.token] = .starting(cancelled: false)
    return [.start(call)]
  }

  /// Event: the task answering call `token` runs as `running`. It is cancelled at once when
  /// the worker cancelled the call meanwhile, or the connection ended.
  mutating func began(_ token: UInt64, _ running: Running) -> [Command] {
    guard case let .starting(cancelled)? = open[token] else {
      // It finished before it was entered, or the connection ended.
      return isEnded ? [.cancel(running)] : []
    }
    open[token] = .running(running, cancelled: cancelled)
    return cancelled ? [.cancel(running)] : []
  }

  /// Event: the worker no longer waits for call `token`.
  mutating func cancelled(_ token: UInt64) -> [Command] {
    guard token <= highestToken else {
      return [.fail(.brokeProtocol(.unprompted(message: "cancelCall(token: \(token))")))]
    }
    switch open[token] {
    case .starting?:
      open[token] = .starting(cancelled: true)
      return []
    case let .running(running, _)?:
      open[token] = .running(running, cancelled: true)
      return [.cancel(running)]
    case nil:
      return []  // it ended already: a normal race
    }
  }

  /// Whether call `token` is still answered: a stream's answers are sent only while it is.
  func isAnswering(_ token: UInt64) -> Bool {
    open[token].map { !$0.isCancelled } ?? false
  }

  /// Event: the task answering call `token` ended. Returns whether to send the worker its
  /// end: not for a call the worker cancelled (it has stopped waiting), nor once the
  /// connection ended.
  mutating func finished(_ token: UInt64) -> Bool {
    guard let call = open.removeValue(forKey: token) else { return false }
    return !call.isCancelled
  }

  /// Event: the connection ended (the worker is gone or let go): every call's task is
  /// cancelled.
  mutating func end() -> [Command] {
    isEnded = true
    defer { open = [:] }
    return open.values.compactMap { call in
      guard case let .running(running, _) = call else { return nil }
      return .cancel(running)
    }
  }
}

extension HostCallsMachine.Command: Sendable where Running: Sendable {}
extension HostCallsMachine.Call: Sendable where Running: Sendable {}
extension HostCallsMachine: Sendable where Running: Sendable {}
