@_spi(Testing) import Bulkhead

/// The host's end of one worker's effects connection as a state machine: the proxy of each
/// effect body running there, the checks that every message the worker sends came with
/// cause (a run the host started, actions numbered one after another, a pong for a ping
/// sent), the wake-ups a test store waits on until the worker settles, the pings that tell a
/// stopped worker, and whether the connection is open, closed (the worker is gone) or
/// retired. It takes events (a proxy registered, a message read, messages about to be sent,
/// a probe, the end) and returns `Command`s;
/// `HostEffects` keeps it behind one lock and performs them outside it. Proxies and the
/// executor a test store waits on are opaque to it. Drawn in docs/state-machines.md,
/// "Host side".
struct EffectsMachine<Proxy, Executor: AnyObject> {
  /// Whether the connection still carries effects.
  enum Phase: Equatable {
    case open
    /// The worker is gone: effects still running, or starting now, are lost.
    case closed
    /// The worker was let go with its child or the composition: its effects were ended on
    /// purpose, none is lost.
    case retired
  }

  /// What the host does next, outside the machine's lock.
  enum Command {
    /// Hand effect action `sequence` to `proxy`; with no proxy, or one that stopped taking,
    /// tell the worker it was dropped.
    case deliverAction(sequence: UInt64, bytes: [UInt8], outcome: Wire.Outcome?, to: Proxy?)
    /// Have `proxy` sleep on the host's clock for the worker's body, then say it woke.
    case deliverSleep(token: UInt64, duration: Duration, to: Proxy)
    /// Report a worker's warning in `proxy`'s task; with no proxy taking it, to `owner`.
    case deliverWarning(String, to: Proxy?, owner: RuntimeWarning.Handler)
    /// Dismiss, in `proxy`'s task, the feature the proxy's effect belongs to.
    case deliverDismissal(to: Proxy)
    /// The body of `proxy` ended in the worker: nothing more will come for it.
    case finish(Proxy)
    /// Answer the worker's question about a dependency.
    case answer(token: UInt64, revision: UInt64, key: String, question: [UInt8])
    /// Answer the worker's async call in a task, on `proxy`'s executor (its body made the
    /// call); with no proxy, on none.
    case deliverCall(Wire.Call, to: Proxy?)
    /// The worker no longer waits for call `token`: cancel its task.
    case cancelCall(token: UInt64)
    /// The worker settled after every wake-up sent for `executor` (a test store's): it may
    /// settle too.
    case settled(Executor)
    /// The worker broke the protocol: give it up.
    case fail(RestartReason)
  }

  private(set) var proxies: [UInt64: Proxy] = [:]
  /// Who hears a warning about an effect whose proxy has ended (a worker's effect that sent
  /// an action after its body returned): the handler of the proxy started last, the store's.
  private var ownerOfEndedEffects = RuntimeWarning.Handler.standardError
  /// The highest run the host has started: a worker's message about a later one is made up.
  private(set) var highestRun: UInt64 = 0
  /// The number of the last effect action that arrived: the worker numbers them one after
  /// another, so a gap is an action that went missing on the way.
  private(set) var lastAction: UInt64 = 0
  private(set) var phase = Phase.open
  /// Messages sent that can wake a worker's effect body, and how many of them the worker
  /// has said it settled after.
  private(set) var wakes: UInt64 = 0
  private(set) var settledWakes: UInt64 = 0
  /// The test stores' executors told that work in the worker runs until it settles, each with
  /// the count of wake-ups the worker must have settled after: its last one. One connection
  /// can carry the effects of several stores (a test's old store still cancelling its effects
  /// while a new one starts its own), and each waits only for what it sent.
  private(set) var waiting: [(executor: Executor, wakes: UInt64)] = []
  /// Whether the worker was asked to report settling.
  private var asksForReports = false
  /// Pings sent, and the one whose pong has not come, with when it is due.
  private(set) var pings: UInt64 = 0
  private(set) var awaitedPong: (token: UInt64, due: ContinuousClock.Instant)?
  /// Whether a pong came after it was due: the worker stalled, and the next probe says so.
  private(set) var answeredLate = false

  /// What a probe of the connection comes to.
  enum Probe: Equatable {
    /// Send ping `token`.
    case ping(token: UInt64)
    /// Nothing to do: the last ping is not due yet, or the connection is not open.
    case wait
    /// The last ping went unanswered past its deadline, or was answered after it.
    case stalled
  }

  /// Event: a proxy starts for body `run`, whose warnings go to `owner`. The phase it found:
  /// only an open connection takes it. A run that has a proxy already was named twice (a
  /// reply damaged into a running body's number): one of the two would wait for ever, so the
  /// worker is given up (`fail`) and both are reported lost with the rest.
  mutating func register(_ run: UInt64, _ proxy: Proxy, warningsTo owner: RuntimeWarning.Handler) -> (
    phase: Phase, commands: [Command]
  ) {
    guard phase == .open else { return (phase, []) }
    guard proxies[run] == nil else { return (.closed, [.fail(.brokeProtocol(.runNamedTwice(run: run)))]) }
    proxies[run] = proxy
    ownerOfEndedEffects = owner
    highestRun = max(highestRun, run)
    return (.open, [])
  }

  /// Event: the host is about to send `messages`, for `executor` if a test store's proxy sends
  /// them. Those that can wake a worker's body keep the executor from settling until the
  /// worker says it has; the first such asks the worker to report settling. Returns the
  /// messages to send and the executor to tell that remote work started, if any.
  mutating func sending(_ messages: [Wire.HostMessage], for executor: Executor?) -> (
    messages: [Wire.HostMessage], started: Executor?
  ) {
    let waking = messages.count(where: \.wakesWorker)
    guard waking > 0 else { return (messages, nil) }
    wakes += UInt64(waking)
    guard phase == .open, let executor else { return (messages, nil) }
    if let index = waiting.firstIndex(where: { $0.executor === executor }) {
      waiting[index].wakes = wakes
      return (messages, nil)
    }
    waiting.append((executor, wakes))
    defer { asksForReports = true }
    return (asksForReports ? messages : [.reportSettling] + messages, executor)
  }

  /// Event, at `now`: the liveness monitor probes the connection, whose pings the worker
  /// must answer within `deadline`. Nobody waits for the pong: the next probe finds whether it
  /// came in time, or pings again.
  mutating func probe(now: ContinuousClock.Instant, deadline: Duration) -> Probe {
    guard phase == .open else { return .wait }
    if answeredLate { return .stalled }
    if let awaited = awaitedPong { return now >= awaited.due ? .stalled : .wait }
    pings += 1
    awaitedPong = (pings, now + deadline)
    return .ping(token: pings)
  }

  /// Event: the connection ends as `ending` (closed or retired). Returns the proxies to end
  /// and the executors waiting for the worker to settle: nothing will settle in a worker
  /// that is gone.
  mutating func end(as ending: Phase) -> (proxies: [Proxy], waiting: [Executor]) {
    if phase == .open { phase = ending }
    defer {
      proxies = [:]
      waiting = []
    }
    return (Array(proxies.values), waiting.map(\.executor))
  }

  /// Event: the worker sent `message`, read at `now` (read only for a pong). `mayAsk` says
  /// whether the host gave the worker a dependency revision it may ask about. Messages about
  /// runs that ended are normal races; about runs never started, made up. (A message only the
  /// host sends does not decode here.)
  mutating func received(
    _ message: Wire.WorkerMessage, at now: @autoclosure () -> ContinuousClock.Instant,
    mayAsk: (_ revision: UInt64) -> Bool
  ) -> [Command] {
    if let violation = violation(by: message, mayAsk: mayAsk) { return [.fail(.brokeProtocol(violation))] }
    switch message {
    case let .action(run, sequence, bytes, outcome):
      return [.deliverAction(sequence: sequence, bytes: bytes, outcome: outcome, to: proxies[run])]
    case let .finished(run, _):
      return proxies.removeValue(forKey: run).map { [.finish($0)] } ?? []
    case let .sleep(run, token, nanoseconds):
      return proxies[run].map { [.deliverSleep(token: token, duration: .nanoseconds(nanoseconds), to: $0)] } ?? []
    case let .settled(count):
      settledWakes = max(settledWakes, count)
      let settled = waiting.filter { $0.wakes <= settledWakes }
      waiting.removeAll { $0.wakes <= settledWakes }
      return settled.map { .settled($0.executor) }
    case let .pong(token):
      guard let awaited = awaitedPong, awaited.token == token else { return [] }
      awaitedPong = nil
      if now() > awaited.due { answeredLate = true }
      return []
    case let .question(token, revision, key, bytes):
      return [.answer(token: token, revision: revision, key: key, question: bytes)]
    case let .warning(run, message):
      return [.deliverWarning(message, to: proxies[run], owner: ownerOfEndedEffects)]
    case let .dismiss(run):
      // An effect that ended has nothing left to dismiss: its feature is gone already.
      return proxies[run].map { [.deliverDismissal(to: $0)] } ?? []
    case let .call(call):
      return [.deliverCall(call, to: proxies[call.run])]
    case let .cancelCall(token):
      return [.cancelCall(token: token)]
    }
  }

  /// What `message` shows the worker did wrong, if anything: a message the host never gave
  /// it cause for, or effect actions gone missing on the way.
  private mutating func violation(
    by message: Wire.WorkerMessage, mayAsk: (_ revision: UInt64) -> Bool
  ) -> ProtocolViolation? {
    let isMadeUp: Bool
    switch message {
    case let .action(run, _, _, _), let .sleep(run, _, _), let .warning(run, _), let .dismiss(run):
      isMadeUp = run > highestRun
    case let .finished(run, _):
      // A body ends once, after its proxy entered the table, and only its end takes it out:
      // an end of a run without one is made up (a damaged run number), and the proxy whose
      // end it was would wait for ever.
      isMadeUp = phase == .open && proxies[run] == nil
    case let .settled(count): isMadeUp = count > wakes
    case let .pong(token): isMadeUp = token > pings
    case let .question(_, revision, _, _): isMadeUp = !mayAsk(revision)
    case let .call(call): isMadeUp = call.run > highestRun || !mayAsk(call.revision)
    case .cancelCall: isMadeUp = false  // the calls' own machine checks it (`HostCallsMachine`)
    }
    if isMadeUp { return .unprompted(message: String(String(describing: message).prefix(160))) }
    return missingActions(noticedBy: message)
  }

  /// Whether `message` shows that effect actions went missing on the way: the worker
  /// numbers them one after another, and says at the end of each body how far it got.
  private mutating func missingActions(noticedBy message: Wire.WorkerMessage) -> ProtocolViolation? {
    switch message {
    case let .action(_, sequence, _, _):
      defer { lastAction = sequence }
      guard sequence != lastAction &+ 1 else { return nil }
      return .actionsMissing(last: lastAction, came: sequence)
    case let .finished(_, numbered) where numbered > lastAction:
      return .endedWithActionsMissing(said: numbered, last: lastAction)
    default:
      return nil
    }
  }
}

extension EffectsMachine.Command: Sendable where Proxy: Sendable, Executor: Sendable {}
