import Synchronization
import Transport

/// A worker's effect bodies: kept when the child reducer returns them, started and cancelled
/// when the host says so, their actions forwarded to the host, each `send` returning once the
/// host has processed the action.
final class WorkerEffects: Sendable {
  typealias Body = @Sendable (_ forward: @escaping @Sendable ([UInt8]) async -> Void) async -> Void

  private struct State {
    var nextRun: UInt64 = 0
    var nextSequence: UInt64 = 0
    var kept: [UInt64: Body] = [:]
    var running: [UInt64: Task<Void, Never>] = [:]
    var waiting: [UInt64: CheckedContinuation<Void, Never>] = [:]
    var isClosed = false
  }

  private let state = Mutex(State())
  private let channel: Mutex<FrameChannel?> = Mutex(nil)

  init(_ connection: FramedConnection) {
    let channel = FrameChannel(
      connection,
      onFrame: { [weak self] frame in self?.receive(frame) },
      onClose: { [weak self] _ in self?.stop() })
    self.channel.withLock { $0 = channel }
  }

  /// Keeps `body` until the host starts it, and returns its number.
  func keep<Action: Sendable>(
    _ body: @escaping @Sendable (Send<Action>) async -> Void,
    encode: @escaping @Sendable (Action) throws -> [UInt8]
  ) -> UInt64 {
    let erased: Body = { forward in
      await body(
        Send(
          forward: { action in
            guard let bytes = try? encode(action) else { return }
            await forward(bytes)
          }, executor: nil))
    }
    return state.withLock { state in
      state.nextRun += 1
      state.kept[state.nextRun] = erased
      return state.nextRun
    }
  }

  /// Cancels every effect and lets every waiting `send` return: the host is gone.
  func stop() {
    let (tasks, waiting) = state.withLock { state in
      state.isClosed = true
      defer {
        state.kept = [:]
        state.running = [:]
        state.waiting = [:]
      }
      return (Array(state.running.values), Array(state.waiting.values))
    }
    for task in tasks { task.cancel() }
    for continuation in waiting { continuation.resume() }
    channel.withLock { $0?.close() }
  }

  private func receive(_ frame: Frame) {
    guard let message = try? Wire.decode(Wire.EffectMessage.self, from: frame)
    else {
      stop()
      return
    }
    switch message {
    case let .start(run): start(run)
    case let .cancel(run): cancel(run)
    case let .processed(sequence):
      state.withLock { $0.waiting.removeValue(forKey: sequence) }?.resume()
    case .action, .finished: stop()
    }
  }

  private func start(_ run: UInt64) {
    state.withLock { state in
      guard let body = state.kept.removeValue(forKey: run) else { return }
      state.running[run] = Task {
        await body { [weak self] bytes in await self?.forward(bytes, from: run) }
        self.finish(run)
      }
    }
  }

  private func cancel(_ run: UInt64) {
    let (task, wasKept) = state.withLock { state in
      (state.running[run], state.kept.removeValue(forKey: run) != nil)
    }
    task?.cancel()
    if wasKept { send(.finished(run: run)) }
  }

  private func finish(_ run: UInt64) {
    state.withLock { _ = $0.running.removeValue(forKey: run) }
    send(.finished(run: run))
  }

  private func forward(_ bytes: [UInt8], from run: UInt64) async {
    await withCheckedContinuation { continuation in
      let sequence = state.withLock { state -> UInt64? in
        guard !state.isClosed else { return nil }
        state.nextSequence += 1
        state.waiting[state.nextSequence] = continuation
        return state.nextSequence
      }
      guard let sequence else { return continuation.resume() }
      send(.action(run: run, sequence: sequence, bytes: bytes))
    }
  }

  private func send(_ message: Wire.EffectMessage) {
    let frame = Wire.frame(message)
    // A failed send means the host closed this connection: it retired this worker or is gone,
    // and the end of the control connection stops the worker.
    channel.withLock { _ = try? $0?.send(frame) }
  }
}
