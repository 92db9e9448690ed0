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

  /// A body kept until the host starts it, with the slot whose state it belongs to.
  struct Kept: Sendable {
    let body: Body
    let slot: [UInt8]
  }

  typealias Machine = WorkerEffectsMachine<Kept, Task<Void, Never>, Waiter>

  /// The effect body a task runs, so that its sleeps can name it to the host.
  @TaskLocal static var currentRun: UInt64?

  private struct PrecomputerReference {
    weak var precomputer: (any OutcomePrecomputer)?
  }

  /// How many actions may be on their way to the host, or waiting there, before a `send`
  /// waits: enough to keep both processes busy, few enough to bound what the host buffers.
  static let window = 256

  /// How many actions wait to be written together at most, and how long.
  static let batch = 64
  static let batchDelay = DispatchTimeInterval.microseconds(500)

  /// The only lock around the bookkeeping. Nothing else is taken while it is held: commands
  /// are performed after it is let go, so it cannot take part in a lock-order cycle.
  private let machine = Mutex(Machine(window: WorkerEffects.window, batch: WorkerEffects.batch))
  /// Held while what waits is taken from the machine and written, so that messages leave in
  /// the order the machine queued them. Actions written by effect bodies wait in the machine
  /// until the bodies have nothing more to run (the executor is idle), `batch` of them wait,
  /// or `batchDelay` has passed: a streaming body's actions go out in a few writes rather than
  /// one each, and the host reads them in a few reads.
  private let writing = Mutex(())
  private let system: SocketActorSystem
  private let host: HostEndpoint
  private let reference = Mutex(PrecomputerReference())
  /// Where effect bodies run: it knows when they are all finished or waiting.
  private let executor = EffectExecutor()

  /// Whether the child is inside a presented destination or a stack element whose presenting
  /// operator runs in the host: then a body's `dismiss()` goes to the host (`Wire.WorkerMessage.dismiss`).
  private let forwardsDismissal: Bool

  /// Who runs effect actions ahead of the host; held weakly, as it owns these effects.
  var precomputer: (any OutcomePrecomputer)? {
    get { reference.withLock { $0.precomputer } }
    set { reference.withLock { $0.precomputer = newValue } }
  }

  /// Whether bodies may stand in for effects of workers this one runs (nested placement).
  private let standsInForWorkers: Bool

  /// The effects of `connection`; `standsInForWorkers` when this worker places boundaries in
  /// workers of its own, whose effects' proxies are among its bodies; `forwardsDismissal` when
  /// the child is inside a presented destination or a stack element.
  init(_ connection: FramedConnection, standsInForWorkers: Bool = false, forwardsDismissal: Bool = false) throws {
    self.standsInForWorkers = standsInForWorkers
    self.forwardsDismissal = forwardsDismissal
    // The system starts reading before `self` exists; its handlers find `self` through this box.
    let box = WeakBox<WorkerEffects>()
    system = SocketActorSystem(connection: connection, onClose: { _ in box.value?.stop() })
    host = try HostEndpoint.resolve(id: HostEndpoint.id, using: system)
    box.value = self
    // The system keeps the endpoint the host sends to; the endpoint finds `self` through the box.
    _ = system.hosting(WorkerEffectsEndpoint.id) { WorkerEffectsEndpoint(effects: box, actorSystem: $0) }
    executor.onChange { [weak self] in self?.handle(.idle) }
  }

  /// Keeps `body`, an effect of the child state in `slot`, until the host starts it, and
  /// returns its number. In a worker that stands in for workers of its own, a body's `send`
  /// names this worker's executor: a proxy of an inner worker's effect counts the inner work
  /// on it (`remoteWorkDidStart`), so that this worker settles only once they have.
  func keep<Action: Sendable>(
    _ body: @escaping @Sendable (Send<Action>) async -> Void,
    encode: @escaping @Sendable (Action) throws -> [UInt8], slot: [UInt8]
  ) -> UInt64 {
    let executor = standsInForWorkers ? executor : nil
    let erased: Body = { forward in
      await body(
        Send(
          forward: { action in
            guard let bytes = try? encode(action) else { return }
            await forward(bytes, action)
          }, executor: executor))
    }
    guard case let .numbered(run) = handle(.keep(Kept(body: erased, slot: slot))) else { return 0 }
    return run
  }

  /// Forgets bodies that the host will never start.
  func discard(_ runs: [UInt64]) {
    guard !runs.isEmpty else { return }
    handle(.discard(runs))
  }

  /// Sleeps for `duration` on the host's clock: in a test, the `TestClock` the test advances.
  /// Outside an effect body the host cannot tell apart, it sleeps here.
  func sleep(for duration: Duration) async throws {
    guard let run = Self.currentRun else { return try await ContinuousClock().sleep(for: duration) }
    guard case let .numbered(token) = handle(.reserveSleep) else { throw CancellationError() }
    let resumption = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        handle(.sleep(token: token, run: run, nanoseconds: Self.nanoseconds(duration), .task(continuation)))
      }
    } onCancel: {
      handle(.cancelSleep(token: token))
    }
    guard resumption == .woke else { throw CancellationError() }
  }

  private static func nanoseconds(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0, attoseconds >= 0 else { return 0 }
    return UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
  }

  /// Asks the host about the crossing dependency named `key`, as of the host's values at
  /// `revision`, and blocks the calling thread until the answer comes; nil when the
  /// connection has ended (then no answer ever comes, and the worker is on its way out).
  ///
  /// The worker's one wait that blocks a thread. A crossing dependency's calls are
  /// synchronous (`CrossingDependencyKey.asking` hands its stand-in a synchronous `ask`, and
  /// the host answers synchronously), whether a reducer makes them or an effect body: the
  /// answer must be there when the call returns. Every other wait in a worker — for the
  /// turn to number an action, for the window, for a sleep on the host's clock — suspends
  /// the body's task and holds no thread.
  ///
  /// Never called on the thread that reads the connection, which is the one that answers.
  func ask(revision: UInt64, key: String, question: [UInt8]) -> Wire.DependencyAnswer? {
    let thread = BlockedThread()
    handle(.ask(revision: revision, key: key, question: question, .thread(thread)))
    guard case let .answered(answer) = thread.wait() else { return nil }
    return answer
  }

  /// Calls the async crossing dependency named `key` on the host, as of the host's values at
  /// `revision`, and waits for the end of the call, suspended: the body's other effects and
  /// the reducer go on meanwhile. Throws `CancellationError` when the calling task is
  /// cancelled (the host's call is cancelled too) and `RemoteCallError.peerDisconnected` when
  /// the connection ends first.
  func call(revision: UInt64, key: String, question: [UInt8]) async throws -> Wire.CallEnd {
    guard case let .numbered(token) = handle(.reserveCall) else { throw RemoteCallError.peerDisconnected }
    let call = Wire.Call(
      token: token, run: Self.currentRun ?? 0, revision: revision, key: key, question: question, streams: false)
    let resumption = await withTaskCancellationHandler {
      await withCheckedContinuation { handle(.call(call, .task($0))) }
    } onCancel: {
      handle(.cancelCall(token: token))
    }
    switch resumption {
    case let .ended(end): return end
    case .cancelled: throw CancellationError()
    default: throw RemoteCallError.peerDisconnected
    }
  }

  /// Calls the async crossing dependency named `key` on the host for a stream of answers:
  /// `receive` gets each answer as it comes (`.element`), then the end (`.ended`, `.cancelled`
  /// or `.closed`), once. Returns the call's token, for `cancel(call:)`; nil when the
  /// connection has ended (`receive` has heard `.closed`).
  func stream(
    revision: UInt64, key: String, question: [UInt8], to receive: @escaping @Sendable (Resumption) -> Void
  ) -> UInt64? {
    guard case let .numbered(token) = handle(.reserveCall) else {
      receive(.closed)
      return nil
    }
    let call = Wire.Call(
      token: token, run: Self.currentRun ?? 0, revision: revision, key: key, question: question, streams: true)
    handle(.call(call, .receiver(receive)))
    return token
  }

  /// The worker no longer waits for the stream of call `token`: the host cancels it. Nothing
  /// happens for a call that has ended.
  func cancel(call token: UInt64) {
    handle(.cancelCall(token: token))
  }

  /// Cancels every effect and lets every waiting `send`, sleep and question return: the host
  /// is gone.
  func stop() {
    handle(.stop)
  }

  /// Handles the host's message. One the worker cannot make sense of ends its effects
  /// connection, and with it the worker (`WorkerEffectsMachine`).
  func receive(_ message: Wire.HostMessage) {
    handle(.received(message))
  }

  /// What a command left for the caller of `handle` to do itself.
  private enum Reply {
    case none
    /// The number the machine gave the caller's body, sleep or action.
    case numbered(UInt64)
    case waitForTurn
    case waitForWindow
  }

  /// Feeds `event` to the machine and performs what it says, after letting go of the lock.
  @discardableResult
  private func handle(_ event: Machine.Event) -> Reply {
    var reply = Reply.none
    for command in machine.withLock({ $0.handle(event) }) {
      switch command {
      case let .numbered(number): reply = .numbered(number)
      case .waitForTurn: reply = .waitForTurn
      case .waitForWindow: reply = .waitForWindow
      case let .start(run, kept): start(run, kept)
      case let .cancel(task): task.cancel()
      case let .resume(waiter, resumption): waiter.resume(resumption)
      case let .settle(sequence, taken): precomputer?.settle(sequence: sequence, taken: taken)
      case .write: write()
      case .writeLater:
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.batchDelay) { [weak self] in self?.write() }
      case let .post(messages):
        // A failed send means the host closed this connection: it retired this worker or is
        // gone, and the end of the control connection stops the worker.
        try? host.post(messages)
      case let .checkSettled(wakes):
        if executor.isSettled { handle(.settled(after: wakes)) }
      case let .performed(wakes): handle(.performed(wakes: wakes))
      case .close: system.close()
      }
    }
    return reply
  }

  private func start(_ run: UInt64, _ kept: Kept) {
    let forwardsDismissal = forwardsDismissal
    let task = Task(executorPreference: executor) {
      // The body's warnings go to the host, to be reported where its proxy runs.
      let warn: @Sendable (RuntimeWarning) -> Void = { [weak self] warning in
        self?.handle(.warn(run: run, message: warning.message))
      }
      let body: @Sendable () async -> Void = {
        await kept.body { [weak self] bytes, action in
          await self?.forward(bytes, action, from: run, slot: kept.slot)
        }
      }
      await withRuntimeWarningHandler(warn) {
        await Self.$currentRun.withValue(run) {
          guard forwardsDismissal else { return await body() }
          // Returns once the host has it, after the actions the body sent before; the host's
          // dismissal cancels the body, which sends nothing more that the host takes.
          await DismissEffect.withDismissal({ [weak self] in _ = self?.handle(.dismiss(run: run)) }, operation: body)
        }
      }
      self.handle(.returned(run: run))
    }
    handle(.began(run: run, task))
  }

  /// Writes the action and returns at once, unless the host has `window` actions to
  /// acknowledge: then it waits until it has half as many.
  private func forward(_ bytes: [UInt8], _ action: any Sendable, from run: UInt64, slot: [UInt8]) async {
    // One body at a time numbers, computes ahead and queues an action, so that actions leave,
    // and are computed ahead, in the order of their numbers; the host can tell one that went
    // missing. The others wait for their turn, suspended.
    let sequence: UInt64
    switch handle(.forward) {
    case let .numbered(number): sequence = number
    case .waitForTurn:
      let resumption = await withCheckedContinuation { handle(.waitForTurn(.task($0))) }
      guard case let .numbered(number) = resumption else { return }
      sequence = number
    case .none, .waitForWindow: return
    }
    let outcome = precomputer?.outcome(of: action, in: slot, sequence: sequence)
    let action = Wire.WorkerMessage.action(run: run, sequence: sequence, bytes: bytes, outcome: outcome)
    guard case .waitForWindow = handle(.queue(action, sequence: sequence)) else { return }
    _ = await withCheckedContinuation { handle(.waitForWindow(.task($0))) }
  }

  /// Writes what waits in the machine, in one write.
  private func write() {
    writing.withLock { _ in _ = handle(.writing) }
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
