@_spi(Testing) import Bulkhead
import Dispatch
import Synchronization
internal import Transport

/// A worker's effect bodies: kept when the child reducer returns them, started and cancelled
/// when the host says so, their actions streamed to the host in order.
///
/// A `send` returns once its action is written, not once the host has processed it: an effect
/// that sends many actions pays no round trip per action. The host processes them in order and
/// drops those of an effect it has cancelled; it acknowledges each, and a `send` that finds
/// `window` actions unacknowledged waits until half of them are, so a body cannot outrun the
/// host without bound.
///
/// Each action goes with its outcome on the worker's copy of the slot, when the `precomputer`
/// can tell it: the host takes it instead of asking, which saves a round trip per action.
///
/// The same connection carries the worker's questions about crossing dependencies and the
/// host's answers (`ask`), and the runtime warnings effect bodies raise, which the host
/// reports where the body's proxy runs.
///
/// On the connection, the host's messages arrive at this worker's `WorkerEffectsEndpoint`, and
/// this worker's go to the host's `HostEndpoint`.
final class WorkerEffects: Sendable {
  /// An effect body with its action type erased: it forwards each action encoded, and as it is
  /// (for the precomputer, which would otherwise decode it again).
  typealias Body = @Sendable (_ forward: @escaping @Sendable ([UInt8], any Sendable) async -> Void) async -> Void

  private struct Kept {
    let body: Body
    let slot: [UInt8]
  }

  /// The effect body a task runs, so that its sleeps can name it to the host.
  @TaskLocal static var currentRun: UInt64?

  private struct State {
    var nextRun: UInt64 = 0
    var nextSequence: UInt64 = 0
    var nextSleep: UInt64 = 0
    var sleeping: [UInt64: PendingSleep] = [:]
    /// The host's messages that can wake an effect body, handled so far; and the count last
    /// reported settled.
    var wakes: UInt64 = 0
    var reportedWakes: UInt64 = 0
    /// Whether the host wants those reports: only a test store waits on them.
    var reportsSettling = false
    var kept: [UInt64: Kept] = [:]
    var running: [UInt64: Task<Void, Never>] = [:]
    var nextQuestion: UInt64 = 0
    var asking: [UInt64: PendingAnswer] = [:]
    /// Actions written that the host has not acknowledged yet, and the sends waiting for
    /// fewer of them.
    var unacknowledged = 0
    var blocked: [CheckedContinuation<Void, Never>] = []
    var isClosed = false
  }

  private struct PrecomputerReference {
    weak var precomputer: (any OutcomePrecomputer)?
  }

  /// How many actions may be on their way to the host, or waiting there, before a `send`
  /// waits: enough to keep both processes busy, few enough to bound what the host buffers.
  static let window = 256

  /// How many actions wait to be written together at most, and how long.
  static let batch = 64
  static let batchDelay = DispatchTimeInterval.microseconds(500)

  private let state = Mutex(State())
  /// Actions written by effect bodies wait here, in order, until the bodies have nothing more
  /// to run (the executor is idle), `batch` of them wait, or `batchDelay` has passed: a
  /// streaming body's actions go out in a few writes rather than one each, and the host reads
  /// them in a few reads. Any other message is written at once, behind them.
  private let outgoing = Mutex<[Wire.WorkerMessage]>([])
  /// Held while an action is numbered, computed ahead and queued. Taken before the core's lock
  /// and `outgoing`'s, never after.
  private let forwarding = Mutex(())
  private let system: SocketActorSystem
  private let host: HostEndpoint
  private let reference = Mutex(PrecomputerReference())
  /// Where effect bodies run: it knows when they are all finished or waiting.
  private let executor = EffectExecutor()

  /// Who runs effect actions ahead of the host; held weakly, as it owns these effects.
  var precomputer: (any OutcomePrecomputer)? {
    get { reference.withLock { $0.precomputer } }
    set { reference.withLock { $0.precomputer = newValue } }
  }

  init(_ connection: FramedConnection) throws {
    // The system starts reading before `self` exists; its handlers find `self` through this box.
    let box = WeakBox<WorkerEffects>()
    system = SocketActorSystem(connection: connection, onClose: { _ in box.value?.stop() })
    host = try HostEndpoint.resolve(id: HostEndpoint.id, using: system)
    box.value = self
    // The system keeps the endpoint the host sends to; the endpoint finds `self` through the box.
    _ = system.hosting(WorkerEffectsEndpoint.id) { WorkerEffectsEndpoint(effects: box, actorSystem: $0) }
    executor.onChange { [weak self] in
      self?.flush()
      self?.reportIfSettled()
    }
  }

  /// Keeps `body`, an effect of the child state in `slot`, until the host starts it, and
  /// returns its number.
  func keep<Action: Sendable>(
    _ body: @escaping @Sendable (Send<Action>) async -> Void,
    encode: @escaping @Sendable (Action) throws -> [UInt8], slot: [UInt8]
  ) -> UInt64 {
    let erased: Body = { forward in
      await body(
        Send(
          forward: { action in
            guard let bytes = try? encode(action) else { return }
            await forward(bytes, action)
          }, executor: nil))
    }
    return state.withLock { state in
      state.nextRun += 1
      state.kept[state.nextRun] = Kept(body: erased, slot: slot)
      return state.nextRun
    }
  }

  /// Forgets bodies that the host will never start.
  func discard(_ runs: [UInt64]) {
    state.withLock { state in
      for run in runs { state.kept[run] = nil }
    }
  }

  /// Sleeps for `duration` on the host's clock: in a test, the `TestClock` the test advances.
  /// Outside an effect body the host cannot tell apart, it sleeps here.
  func sleep(for duration: Duration) async throws {
    guard let run = Self.currentRun else { return try await ContinuousClock().sleep(for: duration) }
    let pending = PendingSleep()
    let token = state.withLock { state -> UInt64? in
      guard !state.isClosed else { return nil }
      state.nextSleep += 1
      state.sleeping[state.nextSleep] = pending
      return state.nextSleep
    }
    guard let token else { throw CancellationError() }
    try await withTaskCancellationHandler {
      try await pending.wait {
        send(.sleep(run: run, token: token, nanoseconds: Self.nanoseconds(duration)))
      }
    } onCancel: {
      state.withLock { _ = $0.sleeping.removeValue(forKey: token) }
      pending.end(throwing: CancellationError())
    }
  }

  private static func nanoseconds(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0, attoseconds >= 0 else { return 0 }
    return UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
  }

  /// Asks the host about the crossing dependency named `key`, as of the host's values at
  /// `revision`, and blocks the calling thread until the answer comes; nil when the
  /// connection has ended (then no answer ever comes, and the worker is on its way out).
  /// Never called on the thread that reads the connection, which is the one that answers.
  func ask(revision: UInt64, key: String, question: [UInt8]) -> Wire.DependencyAnswer? {
    let pending = PendingAnswer()
    let token = state.withLock { state -> UInt64? in
      guard !state.isClosed else { return nil }
      state.nextQuestion += 1
      state.asking[state.nextQuestion] = pending
      return state.nextQuestion
    }
    guard let token else { return nil }
    send(.question(token: token, revision: revision, key: key, bytes: question))
    return pending.wait()
  }

  /// Cancels every effect and lets every waiting `send` and question return: the host is gone.
  func stop() {
    let (tasks, blocked, sleeping, asking) = state.withLock { state in
      state.isClosed = true
      defer {
        state.kept = [:]
        state.running = [:]
        state.blocked = []
        state.sleeping = [:]
        state.asking = [:]
      }
      return (Array(state.running.values), state.blocked, Array(state.sleeping.values), Array(state.asking.values))
    }
    for task in tasks { task.cancel() }
    for continuation in blocked { continuation.resume() }
    for pending in sleeping { pending.end(throwing: CancellationError()) }
    for pending in asking { pending.fulfil(nil) }
    system.close()
  }

  /// A message the worker cannot make sense of ends its effects connection, and with it the
  /// worker: the host restarts it from its own copy rather than trust a copy that may have
  /// gone astray. Messages about runs or sleeps that ended already are normal races and are
  /// let pass; ones about runs, actions or sleeps that never existed are not.
  func receive(_ message: Wire.HostMessage) {
    let isKnown = state.withLock { state in
      switch message {
      case let .start(run): state.kept[run] != nil
      case let .cancel(run): run <= state.nextRun
      case let .processed(sequence, _): sequence <= state.nextSequence && state.unacknowledged > 0
      case let .woke(token): token <= state.nextSleep
      case let .answer(token, _): state.asking[token] != nil
      case .reportSettling, .ping: true
      }
    }
    guard isKnown else { return stop() }
    switch message {
    case let .start(run): start(run)
    case let .cancel(run): cancel(run)
    case let .processed(sequence, tookOutcome):
      precomputer?.settle(sequence: sequence, taken: tookOutcome)
      let unblocked = state.withLock { state in
        state.unacknowledged -= 1
        // Half a window at least, so that a body that waits goes on with a burst, not one at a time.
        guard state.unacknowledged <= Self.window / 2 else { return [CheckedContinuation<Void, Never>]() }
        defer { state.blocked = [] }
        return state.blocked
      }
      for continuation in unblocked { continuation.resume() }
    case let .woke(token):
      state.withLock { $0.sleeping.removeValue(forKey: token) }?.end(throwing: nil)
    case .reportSettling:
      state.withLock { $0.reportsSettling = true }
      reportIfSettled()
      return
    case let .ping(token):
      return send(.pong(token: token))
    case let .answer(token, answer):
      state.withLock { $0.asking.removeValue(forKey: token) }?.fulfil(answer)
      return
    }
    state.withLock { $0.wakes += 1 }
    reportIfSettled()
  }

  /// Tells the host once every effect body is finished or waiting on it, so that a test store
  /// there knows this worker's effects have settled. The count is read before the check, so a
  /// body woken by a message it covers is seen running.
  private func reportIfSettled() {
    guard let wakes = state.withLock({ $0.reportsSettling ? $0.wakes : nil }), executor.isSettled
    else { return }
    let isNew = state.withLock { state in
      guard wakes > state.reportedWakes else { return false }
      state.reportedWakes = wakes
      return true
    }
    if isNew { send(.settled(count: wakes)) }
  }

  private func start(_ run: UInt64) {
    state.withLock { state in
      guard let kept = state.kept.removeValue(forKey: run) else { return }
      state.running[run] = Task(executorPreference: executor) {
        // The body's warnings go to the host, to be reported where its proxy runs.
        let warn: @Sendable (RuntimeWarning) -> Void = { [weak self] warning in
          self?.send(.warning(run: run, message: warning.message))
        }
        await withRuntimeWarningHandler(warn) {
          await Self.$currentRun.withValue(run) {
            await kept.body { [weak self] bytes, action in
              await self?.forward(bytes, action, from: run, slot: kept.slot)
            }
          }
        }
        self.finish(run)
      }
    }
  }

  private func cancel(_ run: UInt64) {
    let (task, wasKept) = state.withLock { state in
      (state.running[run], state.kept.removeValue(forKey: run) != nil)
    }
    task?.cancel()
    // A body that never started sent nothing, and claims nothing.
    if wasKept { send(.finished(run: run, lastAction: 0)) }
  }

  private func finish(_ run: UInt64) {
    state.withLock { _ = $0.running.removeValue(forKey: run) }
    // Under `forwarding`, so that no action numbered before this is still to be queued.
    forwarding.withLock { _ in
      send(.finished(run: run, lastAction: state.withLock { $0.nextSequence }))
    }
  }

  /// Writes the action and returns at once, unless the host has `window` actions to
  /// acknowledge: then it waits until it has half as many.
  private func forward(_ bytes: [UInt8], _ action: any Sendable, from run: UInt64, slot: [UInt8]) async {
    // Numbered and queued in one step, so that actions leave in the order of their numbers and
    // the host can tell one that went missing.
    let isSent = forwarding.withLock { _ in
      let sequence = state.withLock { state -> UInt64? in
        guard !state.isClosed else { return nil }
        state.nextSequence += 1
        state.unacknowledged += 1
        return state.nextSequence
      }
      guard let sequence else { return false }
      let outcome = precomputer?.outcome(of: action, in: slot, sequence: sequence)
      queue(.action(run: run, sequence: sequence, bytes: bytes, outcome: outcome))
      return true
    }
    guard isSent, state.withLock({ $0.unacknowledged >= Self.window }) else { return }
    // The host acknowledges only what it has.
    flush()
    await withCheckedContinuation { continuation in
      let isFree = state.withLock { state in
        guard state.unacknowledged >= Self.window, !state.isClosed else { return true }
        state.blocked.append(continuation)
        return false
      }
      if isFree { continuation.resume() }
    }
  }

  /// Writes `message` now, behind the actions waiting to be written.
  private func send(_ message: Wire.WorkerMessage) {
    write { $0.append(message) }
  }

  /// Adds an effect's action to those waiting to be written; writes them when there are
  /// `batch`, and makes sure they wait no longer than `batchDelay`.
  private func queue(_ action: Wire.WorkerMessage) {
    let count = outgoing.withLock { pending in
      pending.append(action)
      return pending.count
    }
    if count >= Self.batch {
      flush()
    } else if count == 1 {
      DispatchQueue.global().asyncAfter(deadline: .now() + Self.batchDelay) { [weak self] in self?.flush() }
    }
  }

  /// Writes the actions waiting to be written.
  private func flush() {
    write { _ in }
  }

  /// Writes what waits, after `adding` to it, in one write. Writes happen under the lock, so
  /// that messages leave in the order they were added.
  private func write(adding: (inout [Wire.WorkerMessage]) -> Void) {
    outgoing.withLock { pending in
      adding(&pending)
      guard !pending.isEmpty else { return }
      defer { pending.removeAll(keepingCapacity: true) }
      // A failed send means the host closed this connection: it retired this worker or is
      // gone, and the end of the control connection stops the worker.
      try? host.post(pending)
    }
  }
}

/// One question a worker asked the host: the asking thread waits until the answer comes or
/// the connection ends, whichever is first.
final class PendingAnswer: Sendable {
  private let answer = Mutex<Wire.DependencyAnswer?>(nil)
  private let arrived = DispatchSemaphore(value: 0)

  /// Hands the asker `answer`; nil when none will come.
  func fulfil(_ answer: Wire.DependencyAnswer?) {
    self.answer.withLock { $0 = answer }
    arrived.signal()
  }

  func wait() -> Wire.DependencyAnswer? {
    arrived.wait()
    return answer.withLock { $0 }
  }
}

/// Runs an effect's action on the worker's copy of its slot before the host asks, and learns
/// afterwards whether the host took that outcome.
protocol OutcomePrecomputer: AnyObject, Sendable {
  /// The outcome of `action` on `slot`, kept tentatively under `sequence`; nil when it cannot
  /// be told now.
  func outcome(of action: any Sendable, in slot: [UInt8], sequence: UInt64) -> Wire.Outcome?
  /// The host processed action `sequence` and `taken` says whether it used the outcome.
  func settle(sequence: UInt64, taken: Bool)
}
