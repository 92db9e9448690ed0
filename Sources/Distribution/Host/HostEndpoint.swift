import Distributed
internal import Transport

/// The host's end of one worker's effects, a distributed actor the worker sends messages to
/// on the effects connection: an effect action with the outcome the worker computed for it,
/// an effect body finished, a sleep on the host's clock, settling, a question about a
/// dependency the host answers, a runtime warning (`Wire.WorkerMessage`).
///
/// `deliver(_:)` is a message (it returns nothing and cannot throw): the worker does not wait.
/// It runs on the thread that reads the connection, which no host reducer ever waits for.
distributed actor HostEndpoint: EffectMessageEndpoint {
  typealias ActorSystem = SocketActorSystem

  /// Bound to its connection: calls run on the thread that reads them (`ConnectionBound`).
  nonisolated var unownedExecutor: UnownedSerialExecutor { actorSystem.executor.lane.asUnownedSerialExecutor() }

  /// The name the host hosts it under, which the worker knows.
  static let id = SocketActorID(number: 3)

  static let deliverTarget = deliveringTarget()
  static let anyMessage = Wire.WorkerMessage.settled(count: 0)

  private let effects: WeakBox<HostEffects>

  init(effects: WeakBox<HostEffects>, actorSystem: SocketActorSystem) {
    self.effects = effects
    self.actorSystem = actorSystem
  }

  /// Hands a worker's message to the host's effects, which check it came with cause.
  distributed func deliver(_ message: Wire.WorkerMessage) {
    effects.value?.receive(message)
  }
}
