@_spi(Testing) import Bulkhead
import Synchronization
internal import Transport

/// The host's end of a worker's effects: a proxy effect per worker effect body, which starts
/// the body in the worker, feeds its actions to the host's store one at a time, in the order
/// the body streamed them, tells the worker when each was processed or dropped, sleeps on the
/// host's clock for it, and cancels the body when the proxy is cancelled. It also answers the
/// worker's questions about crossing dependencies, from `dependencies`: synchronous ones on
/// the reading thread, async calls each in a task of its own (`HostCallsMachine`), on the
/// executor of the proxy whose body made the call, so that a test store waits for them.
///
/// On the connection, the worker's messages arrive at the host's `HostEndpoint`, and the
/// host's go to the worker's `WorkerEffectsEndpoint`.
final class HostEffects: Sendable {
  private enum Delivery: Sendable {
    case action(sequence: UInt64, bytes: [UInt8], outcome: Wire.Outcome?, arrived: MonotonicInstant)
    case sleep(token: UInt64, duration: Duration)
    case warning(String)
    case dismissal
    case call(Wire.Call)
  }

  /// Where a proxy leaves the outcome a worker computed for an action before the host ran it,
  /// learns afterwards whether the host took it, and says when the host processed the action.
  struct Outcomes: Sendable {
    let offer: @Sendable (_ sequence: UInt64, _ action: [UInt8], _ outcome: Wire.Outcome) -> Void
    let settle: @Sendable (_ sequence: UInt64) -> Bool
    let processed:
      @Sendable (
        _ arrived: MonotonicInstant, _ bytes: Int, _ tookOutcome: Bool, _ patchBytes: Int?, _ action: () -> Any
      ) -> Void
  }

  /// How many of a worker's actions go to the store in one hop at most: few enough that the
  /// main actor, where each may wait for a worker's answer, is let go between bursts.
  static let burst = 32

  private typealias Machine = EffectsMachine<DeliveryQueue<Delivery>, EffectExecutor>

  /// The connection's bookkeeping, behind the one lock.
  private let state = Mutex(Machine())
  /// The worker's async calls and the tasks answering them, behind a lock of their own; never
  /// held with `state`'s.
  private let calls = Mutex(HostCallsMachine<Task<Void, Never>>())
  private let system: SocketActorSystem
  private let worker: WorkerEffectsEndpoint
  /// What the watch thread sends, which must not wait for a worker that stopped reading.
  private let outbox: WatchOutbox<Wire.HostMessage>
  private let boundary: String
  /// The host's dependency values this worker was told of, which its questions are about.
  let dependencies: DependencyTable
  private let onLost: @Sendable (_ count: Int) -> Void
  /// The proxies made for this worker and not yet let go of, for a move that drains it.
  private let tally = ProxyTally()
  private let onFault: @Sendable (_ reason: RestartReason) -> Void

  /// Reads the effect messages of the worker of `boundary` from `connection`, on the thread
  /// that reads every worker's (`ConnectionWatch.effects`). `onClose` runs when the connection
  /// ends; `onFault` when the worker broke the protocol (bytes that do not decode, a message
  /// only the host sends), after which the connection is closed; `onLost` hears of effects
  /// that were running then, or that started after. None of them runs on the watch's thread:
  /// `onFault` may wait for the worker's exit.
  init(
    _ connection: FramedConnection, boundary: String, onClose: @escaping @Sendable () -> Void,
    onFault: @escaping @Sendable (_ reason: RestartReason) -> Void,
    onLost: @escaping @Sendable (_ count: Int) -> Void
  ) throws {
    self.onLost = onLost
    self.onFault = onFault
    self.boundary = boundary
    self.dependencies = DependencyTable(boundary: boundary)
    // The reader starts before `self` exists; it finds `self` through this box.
    let box = WeakBox<HostEffects>()
    system = SocketActorSystem(
      connection: connection, watchedBy: .effects,
      onClose: { error in
        Self.awayFromTheWatch {
          // Closed while the host still used it: the worker crashed, or refused the host's
          // bytes. Either way the worker's actors are gone, and so is the worker.
          if box.value?.isOpen ?? false {
            onFault(error.map { .connectionFailed(.effects, "\($0)") } ?? .connectionEnded(.effects))
          }
          onClose()
          box.value?.close()
        }
      })
    outbox = WatchOutbox { box.value?.post($0) }
    worker = try WorkerEffectsEndpoint.resolve(id: WorkerEffectsEndpoint.id, using: system)
    box.value = self
    // The system keeps the endpoint the worker sends to; the endpoint finds `self` through the box.
    _ = system.hosting(HostEndpoint.id) { HostEndpoint(effects: box, actorSystem: $0) }
  }

  /// The host's stand-in for the worker's effect body `run`.
  func proxy<Action: Sendable>(
    run: UInt64, decode: @escaping @Sendable ([UInt8]) throws -> Action, outcomes: Outcomes
  ) -> Effect<Action> {
    let token = tally.token()
    return Effect(
      // The clock is read at the first sleep, not before: an effect that never sleeps must
      // not count as a use of the clock (in a test, a clock without a test value warns).
      .run(priority: nil) { [self, token, dependencies = DependencyValues.current] send in
        // Counted from its making (above) until the body is over, or never runs.
        defer { withExtendedLifetime(token) {} }
        let deliveries = DeliveryQueue<Delivery>()
        switch register(run, deliveries, warningsTo: .current) {
        case .open: break
        case .closed: return onLost(1)
        case .retired: return
        }
        let executor = send.executor
        self.send(.start(run: run), for: executor)
        await withTaskCancellationHandler {
          await withDiscardingTaskGroup { sleeps in
            while case let burst = await deliveries.next(), !burst.isEmpty {
              var rest = burst[...]
              while let first = rest.first {
                switch first {
                case .action:
                  // The actions up to the next sleep or warning, at most `burst` in one go.
                  let actions = rest.prefix { if case .action = $0 { true } else { false } }.prefix(Self.burst)
                  rest = rest.dropFirst(actions.count)
                  await deliver(actions, to: send, decode: decode, outcomes: outcomes)
                case let .sleep(token, duration):
                  rest = rest.dropFirst()
                  // On this task's executor: a test store sees the sleep as its own effect's.
                  sleeps.addTask {
                    guard (try? await dependencies.continuousClock.sleep(for: duration)) != nil else { return }
                    self.send(.woke(token: token), for: executor)
                  }
                case let .warning(message):
                  rest = rest.dropFirst()
                  // Here, in the effect's task: a test store's warning handler hears it.
                  reportWorkerWarning(message, boundary: boundary)
                case .dismissal:
                  rest = rest.dropFirst()
                  // Here, in the effect's task, where the host's presenting operator set the
                  // dismissal: the feature is dismissed as if this effect had called it.
                  if await !DismissEffect.dismissPresented() {
                    reportWorkerWarning(Self.nothingToDismiss, boundary: boundary)
                  }
                case let .call(call):
                  rest = rest.dropFirst()
                  // Made here, so that it inherits the effect's task-locals (the test clock
                  // notes its executor) and runs on its executor.
                  answer(call, on: executor)
                }
              }
            }
            // The body ended in the worker, or the worker is gone: nothing will wake.
            sleeps.cancelAll()
          }
        } onCancel: {
          self.send(.cancel(run: run), for: executor)
        }
        // Cancelled: the actions still queued are dropped, and the worker hears so.
        let dropped = deliveries.end().compactMap { delivery -> Wire.HostMessage? in
          guard case let .action(sequence, _, _, _) = delivery else { return nil }
          return .processed(sequence: sequence, tookOutcome: false)
        }
        if !dropped.isEmpty { self.send(dropped) }
      })
  }

  /// What a worker's `dismiss()` that reaches an effect nothing presented on the host says.
  private static let nothingToDismiss = """
    An effect called "dismiss()" in its worker, but nothing presented the feature on the host: \
    there is nothing to dismiss. Present the feature with "ifLet(\\.$destination, action:)" or \
    push it with "forEach(\\.path, action:)".
    """

  /// Feeds a worker's effect actions to the store in order, and tells the worker each was
  /// processed, in one write. When the store is on the main actor, all of them go in one hop
  /// there rather than one hop each: a streaming effect's actions arrive in bursts.
  private func deliver<Action: Sendable>(
    _ deliveries: some Collection<Delivery>, to send: Send<Action>,
    decode: @Sendable ([UInt8]) throws -> Action, outcomes: Outcomes
  ) async {
    var actions: [Arrival<Action>] = []
    for case let .action(sequence, bytes, outcome, arrived) in deliveries {
      guard let action = try? decode(bytes) else {
        // Ends every proxy of this worker, this one included, as lost.
        return fail(.brokeProtocol(.undecodableAction(bytes: bytes.count)))
      }
      actions.append(Arrival(sequence: sequence, bytes: bytes, outcome: outcome, arrived: arrived, action: action))
    }
    var processed: [Wire.HostMessage] = []
    if let inOneHop = await send.inOneHop(actions, { arrival, send in arrival.process(outcomes: outcomes, deliver: send) }) {
      processed = inOneHop
    } else {
      for arrival in actions {
        arrival.offer(to: outcomes)
        await send(arrival.action)
        processed.append(arrival.settle(outcomes: outcomes))
      }
    }
    self.send(processed, for: send.executor)
  }

  /// Whether the worker answered the last ping on this connection within `deadline`, or has
  /// had less than that to answer it; pings it again once it has answered. A worker whose
  /// effects connection stopped moving in either direction does not answer. Never waits for
  /// the pong: called once a period by the liveness monitor, which the next probe tells.
  func answersPings(within deadline: Duration) -> Bool {
    switch state.withLock({ $0.probe(now: .now, deadline: deadline) }) {
    case let .ping(token):
      send(.ping(token: token))
      return true
    case .wait:
      return true
    case .stalled:
      return false
    }
  }

  /// Runs `action` once every proxy made so far for this worker has been let go of: now, or
  /// when the last one goes.
  func whenEveryProxyEnded(_ action: @escaping @Sendable () -> Void) {
    tally.whenNone(action)
  }

  /// Ends every proxy, reporting them lost, and the connection.
  func close() {
    end(as: .closed) { count in
      if count > 0 { onLost(count) }
    }
  }

  /// Ends every proxy as if its effect had finished, and the connection: for a worker let go
  /// with its child, whose effects the host cancels in the same pass, or with the composition.
  func retire() {
    end(as: .retired) { _ in }
  }

  /// Ends every proxy, after `reporting` their count: whoever waits for an effect to end has
  /// heard of it by then.
  private func end(as phase: Machine.Phase, reporting: (Int) -> Void) {
    let (proxies, waiting) = state.withLock { $0.end(as: phase) }
    performCalls(calls.withLock { $0.end() })
    reporting(proxies.count)
    // Nothing will settle in a worker that is gone.
    for executor in waiting { executor.remoteWorkDidSettle() }
    for proxy in proxies { proxy.finish() }
    system.close()
  }

  /// Enters the proxy of `run` in the table that ends every proxy when the worker goes; a
  /// run named twice gives the worker up (`EffectsMachine.register`).
  private func register(
    _ run: UInt64, _ deliveries: DeliveryQueue<Delivery>, warningsTo owner: RuntimeWarning.Handler
  ) -> Machine.Phase {
    let registered = state.withLock { $0.register(run, deliveries, warningsTo: owner) }
    perform(registered.commands)
    return registered.phase
  }

  private var isOpen: Bool { state.withLock { $0.phase == .open } }

  /// Bad bytes from a worker end the worker, never the host.
  private func fail(_ reason: RestartReason) {
    Self.awayFromTheWatch { [self] in
      onFault(reason)
      close()
    }
  }

  /// Runs `body` now, or, on the watch's thread, which must not wait, on a thread of its own:
  /// for the end of a worker, whose fault may wait up to `WorkerLink.limitVerdictWait` for its
  /// exit.
  private static func awayFromTheWatch(_ body: @escaping @Sendable () -> Void) {
    if ConnectionWatch.effects.isCurrent { DetachedThread.run(body) } else { body() }
  }

  /// Takes a worker's message, which the machine checks came with cause.
  func receive(_ message: Wire.WorkerMessage) {
    perform(state.withLock { $0.received(message, at: .now, mayAsk: dependencies.mayAsk(about:)) })
  }

  /// Does what the machine decided, outside its lock.
  private func perform(_ commands: [Machine.Command]) {
    for command in commands {
      switch command {
      case let .deliverAction(sequence, bytes, outcome, proxy):
        // No proxy takes it (its effect ended or was cancelled): dropped, and the worker hears so.
        if proxy?.push(.action(sequence: sequence, bytes: bytes, outcome: outcome, arrived: .now)) != true {
          send(.processed(sequence: sequence, tookOutcome: false))
        }
      case let .deliverSleep(token, duration, proxy):
        _ = proxy.push(.sleep(token: token, duration: duration))
      case let .deliverWarning(message, proxy, owner):
        // Reported in the proxy's task, where a test store's warning handler hears it; to the
        // store's handler if no proxy takes it.
        if proxy?.push(.warning(message)) != true {
          reportWorkerWarning(
            message + "\n\nThe effect had ended on the host: actions it sends now are dropped.",
            boundary: boundary, to: owner)
        }
      case let .deliverDismissal(proxy):
        _ = proxy.push(.dismissal)
      case let .finish(proxy):
        proxy.finish()
      case let .deliverCall(call, proxy):
        performCalls(calls.withLock { $0.asked(call) }, proxy: proxy)
      case let .cancelCall(token):
        performCalls(calls.withLock { $0.cancelled(token) })
      case let .answer(token, revision, key, question):
        // Answered here, on the reading thread, which no host reducer ever waits for: the
        // reducer that may be waiting for this worker's reply holds nothing the answer needs.
        send(.answer(token: token, dependencies.answer(revision: revision, key: key, question: question)))
      case let .settled(executor):
        executor.remoteWorkDidSettle()
      case let .fail(reason):
        fail(reason)
      }
    }
  }

  /// Does what the calls' machine decided, outside its lock. A call starts in its proxy's
  /// task when the proxy takes it, else here.
  private func performCalls(_ commands: [HostCallsMachine<Task<Void, Never>>.Command], proxy: DeliveryQueue<Delivery>? = nil) {
    for command in commands {
      switch command {
      case let .start(call):
        if proxy?.push(.call(call)) != true { answer(call, on: nil) }
      case let .cancel(task):
        task.cancel()
      case let .fail(reason):
        fail(reason)
      }
    }
  }

  /// Answers the worker's async `call` in a task of its own, on `executor`, with the host's
  /// dependency values of the call's revision; a stream's answers go as they come. A slow
  /// answer holds nothing else: not the reading thread, not the proxy, not other calls.
  private func answer(_ call: Wire.Call, on executor: EffectExecutor?) {
    let token = call.token
    let task = Task(executorPreference: executor) { [self] in
      let end = await dependencies.answer(call) { element in
        guard self.calls.withLock({ $0.isAnswering(token) }) else { return }
        self.send(.callElement(token: token, element), for: executor)
      }
      guard calls.withLock({ $0.finished(token) }) else { return }
      send(.callEnded(token: token, end), for: executor)
    }
    performCalls(calls.withLock { $0.began(token, task) })
  }

  /// Sends `message`; one that can wake a worker's effect body keeps `executor` (a test
  /// store's) from settling until the worker says it has.
  private func send(_ message: Wire.HostMessage, for executor: EffectExecutor? = nil) {
    send([message], for: executor)
  }

  /// Sends `messages` in order, in one write.
  private func send(_ messages: [Wire.HostMessage], for executor: EffectExecutor? = nil) {
    var messages = messages
    if messages.contains(where: \.wakesWorker) {
      let started: EffectExecutor?
      (messages, started) = state.withLock { $0.sending(messages, for: executor) }
      started?.remoteWorkDidStart()
    }
    guard ConnectionWatch.effects.isCurrent else { return post(messages) }
    outbox.send(messages) { system.canWriteWithoutWaiting }
  }

  /// Writes `messages`, waiting at most the socket's send timeout.
  private func post(_ messages: [Wire.HostMessage]) {
    // A write that fails (the worker is gone, or stopped reading past the send timeout)
    // ends the connection; the worker is then restarted like a crashed one.
    do {
      try worker.post(messages)
    } catch where isOpen {
      fail(.connectionFailed(.effects, "a write failed: \(error)"))
    } catch {
      // The worker was let go or is gone already: nothing is waiting for this message.
    }
  }
}

/// One effect action as the host's proxy received it, decoded.
private struct Arrival<Action: Sendable>: Sendable {
  let sequence: UInt64
  let bytes: [UInt8]
  let outcome: Wire.Outcome?
  let arrived: MonotonicInstant
  let action: Action

  /// Offers the worker's outcome, delivers the action with `deliver`, and returns what the
  /// worker is told.
  func process(outcomes: HostEffects.Outcomes, deliver: (Action) -> Void) -> Wire.HostMessage {
    offer(to: outcomes)
    deliver(action)
    return settle(outcomes: outcomes)
  }

  /// Leaves the outcome the worker computed ahead, if any, for the boundary to take.
  func offer(to outcomes: HostEffects.Outcomes) {
    if let outcome { outcomes.offer(sequence, bytes, outcome) }
  }

  /// Whether the host took the worker's outcome, reported to `outcomes`; the message that
  /// tells the worker the action was processed.
  func settle(outcomes: HostEffects.Outcomes) -> Wire.HostMessage {
    let took = outcome != nil && outcomes.settle(sequence)
    outcomes.processed(arrived, bytes.count, took, took ? outcome?.patch?.byteCount : nil) { action }
    return .processed(sequence: sequence, tookOutcome: took)
  }
}

/// A weak reference that can be handed to a closure before its object exists.
final class WeakBox<Object: AnyObject & Sendable>: Sendable {
  private let reference = Mutex<Weak>(Weak())

  private struct Weak: @unchecked Sendable {
    // Safe: `Object` is `Sendable`, and the reference is read and written only under `reference`'s lock.
    weak var object: Object?
  }

  var value: Object? {
    get { reference.withLock { $0.object } }
    set { reference.withLock { $0.object = newValue } }
  }
}
