internal import Transport

/// The bookkeeping of a worker's effects connection, as a value: which effect bodies are kept,
/// running or gone, how actions are numbered and how many the host has yet to acknowledge,
/// which sleeps, questions and async calls wait on the host, what waits to be written, and
/// when to tell the host the worker's effects have settled. It takes events — a message from the host, a
/// body kept, an action forwarded, a body returned — and returns the commands that follow
/// (write, start, cancel, resume a waiter). It holds no lock, thread or socket:
/// `WorkerEffects` keeps it under one lock and performs the commands after letting go.
///
/// `Body` is a kept effect body, `Running` the handle of one running, and `Waiter` whatever
/// waits on the host (a suspended task, or a blocked thread); the machine only keeps and
/// hands them back, so tests use plain values.
struct WorkerEffectsMachine<Body: Sendable, Running: Sendable, Waiter: Sendable>: Sendable {
  /// What happened.
  enum Event: Sendable {
    /// The host sent `message`.
    case received(Wire.HostMessage)
    /// A child reducer returned an effect body, which waits for the host to start it.
    case keep(Body)
    /// Bodies the host will never start (their outcome was not taken).
    case discard([UInt64])
    /// The body `run` started by `.start` runs as `Running`.
    case began(run: UInt64, Running)
    /// The body `run` returned.
    case returned(run: UInt64)
    /// A body has an action to send: it asks for the turn, and a number. No command: the
    /// connection ended, and the action goes nowhere.
    case forward
    /// The body that asked in vain for a number waits for its turn.
    case waitForTurn(Waiter)
    /// The action numbered `sequence` is ready to go, with its outcome if it could be told.
    case queue(Wire.WorkerMessage, sequence: UInt64)
    /// A body whose action left waits until the host has acknowledged enough.
    case waitForWindow(Waiter)
    /// A body sleeps on the host's clock: it asks for a token first, so that a cancellation
    /// that comes before it waits can name the sleep. No command: the connection ended.
    case reserveSleep
    /// The sleep `token` of `run` waits for the host to wake it.
    case sleep(token: UInt64, run: UInt64, nanoseconds: UInt64, Waiter)
    /// The task sleeping under `token` was cancelled.
    case cancelSleep(token: UInt64)
    /// A body raised a runtime warning, for the host to report where its proxy runs.
    case warn(run: UInt64, message: String)
    /// A body called `dismiss()`, for the host to dismiss the feature its proxy runs in.
    case dismiss(run: UInt64)
    /// A reducer or body asks the host about a crossing dependency.
    case ask(revision: UInt64, key: String, question: [UInt8], Waiter)
    /// A body makes an async call on a crossing dependency: it asks for a token first, so that
    /// a cancellation that comes before it waits can name the call. No command: the
    /// connection ended.
    case reserveCall
    /// The call reserved as `call.token` waits for the host's answers (`Waiter` is resumed
    /// with each of a stream's, then with the end).
    case call(Wire.Call, Waiter)
    /// The task waiting for call `token` was cancelled, or stopped iterating its stream.
    case cancelCall(token: UInt64)
    /// The executor ran out of work: every body is finished or waiting.
    case idle
    /// The commands of the host's first `wakes` messages that wake a body have been performed:
    /// what they woke is queued on the executor.
    case performed(wakes: UInt64)
    /// The executor was seen settled after the host's first `wakes` messages that wake a body.
    case settled(after: UInt64)
    /// The writer is about to write.
    case writing
    /// The host is gone, or sent what the worker cannot make sense of.
    case stop
  }

  /// What to do.
  enum Command: Sendable {
    /// The number the machine gave the event's subject: a kept body's run, a sleep's token,
    /// the sequence of the action to compute ahead and queue.
    case numbered(UInt64)
    /// Run `Body` as `run`, then report `.began`.
    case start(run: UInt64, Body)
    case cancel(Running)
    case resume(Waiter, Resumption)
    /// Tell the precomputer the host processed action `sequence`.
    case settle(sequence: UInt64, taken: Bool)
    /// The body that asked for a number waits for its turn: report `.waitForTurn`.
    case waitForTurn
    /// The body whose action was queued waits until the host has acknowledged enough: report
    /// `.waitForWindow`.
    case waitForWindow
    /// Write what waits to be written, now.
    case write
    /// Write what waits after `WorkerEffects.batchDelay`, unless it is written sooner.
    case writeLater
    /// Write these messages, in one write, before anything taken later.
    case post([Wire.WorkerMessage])
    /// If the executor is settled, report `.settled(after: wakes)`. The count covers only
    /// messages whose commands were performed before it was taken, so a body woken by a
    /// message it covers is seen queued or running.
    case checkSettled(wakes: UInt64)
    /// The commands before this one are performed: report `.performed(wakes:)`.
    case performed(wakes: UInt64)
    /// Close the connection.
    case close
  }

  /// Where a body the host knows of stands.
  enum Run: Sendable {
    /// Asked to start; its handle is on the way, and the host may cancel it meanwhile.
    case starting(isCancelled: Bool)
    case running(Running)
  }

  /// Where a sleep stands.
  enum Sleep: Sendable {
    /// Its token was handed out; its task has not waited yet.
    case reserved
    case waiting(Waiter)
  }

  /// Where an async call stands.
  enum Call: Sendable {
    /// Its token was handed out; its task has not waited yet.
    case reserved
    /// Sent to the host; a call that `streams` takes answers until its end.
    case waiting(Waiter, streams: Bool)
  }

  /// How many actions may be on their way to the host, or waiting there, before a body that
  /// sends one waits.
  let window: Int
  /// How many actions wait to be written together at most.
  let batch: Int

  private(set) var nextRun: UInt64 = 0
  private(set) var kept: [UInt64: Body] = [:]
  private(set) var runs: [UInt64: Run] = [:]
  /// The last action numbered, and the last queued: they differ while a body holds the turn.
  private(set) var nextSequence: UInt64 = 0
  private(set) var lastQueued: UInt64 = 0
  /// Whether a body holds the turn to number, compute ahead and queue one action: actions
  /// leave in the order of their numbers, and are computed ahead in that order.
  private(set) var isTurnTaken = false
  private(set) var awaitingTurn: [Waiter] = []
  /// Actions written that the host has not acknowledged yet, and the bodies waiting for
  /// fewer of them.
  private(set) var unacknowledged = 0
  private(set) var blocked: [Waiter] = []
  private(set) var nextSleep: UInt64 = 0
  private(set) var sleeping: [UInt64: Sleep] = [:]
  private(set) var nextQuestion: UInt64 = 0
  private(set) var asking: [UInt64: Waiter] = [:]
  private(set) var nextCall: UInt64 = 0
  private(set) var calls: [UInt64: Call] = [:]
  /// The host's messages that can wake an effect body, handled so far; of those, the ones
  /// whose commands (resuming what they wake) have been performed; and the count last
  /// reported settled. What a message wakes is resumed after the lock that counted it is let
  /// go: an executor seen idle in between is not settled after that message.
  private(set) var wakes: UInt64 = 0
  private(set) var performedWakes: UInt64 = 0
  private(set) var reportedWakes: UInt64 = 0
  /// Whether the host wants those reports: only a test store waits on them.
  private(set) var reportsSettling = false
  /// Messages waiting to be written, in order.
  private(set) var outgoing: [Wire.WorkerMessage] = []
  private(set) var isClosed = false

  init(window: Int, batch: Int) {
    self.window = window
    self.batch = batch
  }

  mutating func handle(_ event: Event) -> [Command] {
    switch event {
    case let .received(message): return receive(message)
    case let .keep(body):
      nextRun += 1
      kept[nextRun] = body
      return [.numbered(nextRun)]
    case let .discard(discarded):
      for run in discarded { kept[run] = nil }
      return []
    case let .began(run, running):
      guard case let .starting(isCancelled) = runs[run] else { return [] }  // it returned already
      runs[run] = .running(running)
      return isCancelled ? [.cancel(running)] : []
    case let .returned(run):
      runs[run] = nil
      // Every action numbered up to `lastQueued` is queued ahead of this: the host, which has
      // them all by then, can tell one that went missing.
      return send(.finished(run: run, lastAction: lastQueued))
    case .forward:
      guard !isClosed else { return [] }
      guard !isTurnTaken else { return [.waitForTurn] }
      isTurnTaken = true
      return [.numbered(number())]
    case let .waitForTurn(waiter):
      if isClosed { return [.resume(waiter, .closed)] }
      guard isTurnTaken else {
        isTurnTaken = true
        return [.resume(waiter, .numbered(number()))]
      }
      awaitingTurn.append(waiter)
      return []
    case let .queue(action, sequence):
      return queue(action, sequence: sequence)
    case let .waitForWindow(waiter):
      guard unacknowledged >= window, !isClosed else { return [.resume(waiter, .go)] }
      blocked.append(waiter)
      return []
    case .reserveSleep:
      guard !isClosed else { return [] }
      nextSleep += 1
      sleeping[nextSleep] = .reserved
      return [.numbered(nextSleep)]
    case let .sleep(token, run, nanoseconds, waiter):
      guard case .reserved = sleeping[token] else { return [.resume(waiter, .cancelled)] }
      sleeping[token] = .waiting(waiter)
      return send(.sleep(run: run, token: token, nanoseconds: nanoseconds))
    case let .cancelSleep(token):
      guard case let .waiting(waiter) = sleeping.removeValue(forKey: token) else { return [] }
      return [.resume(waiter, .cancelled)]
    case let .warn(run, message):
      return send(.warning(run: run, message: message))
    case let .dismiss(run):
      return send(.dismiss(run: run))
    case let .ask(revision, key, question, waiter):
      guard !isClosed else { return [.resume(waiter, .answered(nil))] }
      nextQuestion += 1
      asking[nextQuestion] = waiter
      return send(.question(token: nextQuestion, revision: revision, key: key, bytes: question))
    case .reserveCall:
      guard !isClosed else { return [] }
      nextCall += 1
      calls[nextCall] = .reserved
      return [.numbered(nextCall)]
    case let .call(call, waiter):
      if isClosed { return [.resume(waiter, .closed)] }
      guard case .reserved = calls[call.token] else { return [.resume(waiter, .cancelled)] }
      calls[call.token] = .waiting(waiter, streams: call.streams)
      return send(.call(call))
    case let .cancelCall(token):
      switch calls.removeValue(forKey: token) {
      case let .waiting(waiter, _)?: return [.resume(waiter, .cancelled)] + send(.cancelCall(token: token))
      case .reserved?, nil: return []
      }
    case .idle:
      return (outgoing.isEmpty ? [] : [.write]) + checkSettled()
    case let .performed(count):
      performedWakes = max(performedWakes, count)
      return checkSettled()
    case let .settled(after):
      guard after > reportedWakes else { return [] }
      reportedWakes = after
      return send(.settled(count: after))
    case .writing:
      guard !outgoing.isEmpty else { return [] }
      defer { outgoing.removeAll(keepingCapacity: true) }
      return [.post(outgoing)]
    case .stop:
      return stop()
    }
  }

  /// A message the worker cannot make sense of stops it: the host restarts it from its own
  /// copy rather than trust a copy that may have gone astray. Messages about runs or sleeps
  /// that ended already are normal races and are let pass; ones about runs, actions or
  /// sleeps that never existed are not.
  private mutating func receive(_ message: Wire.HostMessage) -> [Command] {
    guard !isClosed else { return [] }
    switch message {
    case let .start(run):
      guard let body = kept.removeValue(forKey: run) else { return stop() }
      runs[run] = .starting(isCancelled: false)
      return [.start(run: run, body)] + woken()
    case let .cancel(run):
      guard run <= nextRun else { return stop() }
      var commands: [Command] = []
      if kept.removeValue(forKey: run) != nil {
        // A body that never started sent nothing, and claims nothing.
        commands = send(.finished(run: run, lastAction: 0))
      } else if case let .running(running) = runs[run] {
        commands = [.cancel(running)]
      } else if case .starting = runs[run] {
        runs[run] = .starting(isCancelled: true)
      }
      return commands + woken()
    case let .processed(sequence, taken):
      guard sequence <= nextSequence, unacknowledged > 0 else { return stop() }
      unacknowledged -= 1
      var commands: [Command] = [.settle(sequence: sequence, taken: taken)]
      // Half a window at least, so that a body that waits goes on with a burst, not one at a time.
      if unacknowledged <= window / 2, !blocked.isEmpty {
        commands += blocked.map { .resume($0, .go) }
        blocked = []
      }
      commands += woken()
      return commands
    case let .woke(token):
      guard token <= nextSleep else { return stop() }
      var commands: [Command] = []
      if case let .waiting(waiter) = sleeping.removeValue(forKey: token) { commands = [.resume(waiter, .woke)] }
      return commands + woken()
    case .reportSettling:
      reportsSettling = true
      // The host's messages are handled one after another: those before this one are performed.
      performedWakes = wakes
      return checkSettled()
    case let .ping(token):
      return send(.pong(token: token))
    case let .answer(token, answer):
      guard let waiter = asking.removeValue(forKey: token) else { return stop() }
      // It wakes nothing that waits on the host: the asker is a blocked thread, not counted.
      return [.resume(waiter, .answered(answer))]
    case let .callElement(token, bytes):
      // An answer to a call cancelled since is a normal race; one to a call never made, or
      // a stream's answer to a call that takes one answer, is not.
      guard token <= nextCall else { return stop() }
      switch calls[token] {
      case let .waiting(waiter, streams: true)?: return [.resume(waiter, .element(bytes))] + woken()
      case .waiting(_, streams: false)?, .reserved?: return stop()
      case nil: return woken()
      }
    case let .callEnded(token, end):
      guard token <= nextCall else { return stop() }
      switch calls[token] {
      case let .waiting(waiter, _)?:
        calls[token] = nil
        return [.resume(waiter, .ended(end))] + woken()
      case .reserved?: return stop()
      case nil: return woken()
      }
    }
  }

  /// A message that can wake a body was handled; once its commands, which come first, are
  /// performed, the executor is looked at.
  private mutating func woken() -> [Command] {
    wakes += 1
    return reportsSettling ? [.performed(wakes: wakes)] : []
  }

  private func checkSettled() -> [Command] {
    reportsSettling && performedWakes > reportedWakes ? [.checkSettled(wakes: performedWakes)] : []
  }

  private mutating func number() -> UInt64 {
    nextSequence += 1
    unacknowledged += 1
    return nextSequence
  }

  /// Queues the action of the body that holds the turn, and passes the turn on.
  private mutating func queue(_ action: Wire.WorkerMessage, sequence: UInt64) -> [Command] {
    guard !isClosed else { return [] }
    outgoing.append(action)
    lastQueued = sequence
    // The host acknowledges only what it has: a body about to wait for it writes first.
    let mustWait = unacknowledged >= window
    var commands: [Command] =
      outgoing.count >= batch || mustWait ? [.write] : outgoing.count == 1 ? [.writeLater] : []
    if mustWait { commands.append(.waitForWindow) }
    if awaitingTurn.isEmpty {
      isTurnTaken = false
    } else {
      commands.append(.resume(awaitingTurn.removeFirst(), .numbered(number())))
    }
    return commands
  }

  /// Queues `message` behind the actions waiting, and writes them all now.
  private mutating func send(_ message: Wire.WorkerMessage) -> [Command] {
    guard !isClosed else { return [] }
    outgoing.append(message)
    return [.write]
  }

  /// Cancels every body and lets every waiter go: the host is gone.
  private mutating func stop() -> [Command] {
    guard !isClosed else { return [] }
    isClosed = true
    var commands: [Command] = []
    for case let .running(running) in runs.values { commands.append(.cancel(running)) }
    commands += blocked.map { .resume($0, .go) }
    for case let .waiting(waiter) in sleeping.values { commands.append(.resume(waiter, .cancelled)) }
    commands += asking.values.map { .resume($0, .answered(nil)) }
    for case let .waiting(waiter, _) in calls.values { commands.append(.resume(waiter, .closed)) }
    commands += awaitingTurn.map { .resume($0, .closed) }
    kept = [:]
    runs = [:]
    blocked = []
    sleeping = [:]
    asking = [:]
    calls = [:]
    awaitingTurn = []
    outgoing = []
    return commands + [.close]
  }
}

/// Why something waiting on the host goes on: what `WorkerEffectsMachine` resumes a waiter with.
enum Resumption: Equatable, Sendable {
  /// A send may go on: the window has room, or the connection ended.
  case go
  /// It is the waiter's turn, with this action number.
  case numbered(UInt64)
  /// The connection ended before it was the waiter's turn, or before a call's end.
  case closed
  /// The host's sleep is over.
  case woke
  /// The sleep was cancelled, or the connection ended.
  case cancelled
  /// The host's answer; nil when none will come.
  case answered(Wire.DependencyAnswer?)
  /// One answer of the stream that answers a call.
  case element([UInt8])
  /// The call is over.
  case ended(Wire.CallEnd)
}

// Compared in the tests' tables, with plain values for bodies, tasks and waiters.
extension WorkerEffectsMachine.Command: Equatable where Body: Equatable, Running: Equatable, Waiter: Equatable {}
