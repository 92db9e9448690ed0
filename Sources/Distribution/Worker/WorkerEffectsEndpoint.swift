import Distributed
internal import Transport

/// The worker's end of its effects, a distributed actor the host sends messages to on the
/// effects connection: start or cancel an effect body, the host processed an action, a sleep
/// on the host's clock is over, the answer to a dependency question (`Wire.HostMessage`).
///
/// `deliver(_:)` is a message (it returns nothing and cannot throw): the host does not wait.
distributed actor WorkerEffectsEndpoint: EffectMessageEndpoint {
  typealias ActorSystem = SocketActorSystem

  /// Bound to its connection: calls run on the thread that reads them (`ConnectionBound`).
  nonisolated var unownedExecutor: UnownedSerialExecutor { actorSystem.executor.lane.asUnownedSerialExecutor() }

  /// The name the worker hosts it under, which the host knows.
  static let id = SocketActorID(number: 2)

  static let deliverTarget = deliveringTarget()
  static let anyMessage = Wire.HostMessage.reportSettling

  private let effects: WeakBox<WorkerEffects>

  init(effects: WeakBox<WorkerEffects>, actorSystem: SocketActorSystem) {
    self.effects = effects
    self.actorSystem = actorSystem
  }

  /// Hands the host's message to the worker's effects, which check it names what exists.
  distributed func deliver(_ message: Wire.HostMessage) {
    effects.value?.receive(message)
  }
}
