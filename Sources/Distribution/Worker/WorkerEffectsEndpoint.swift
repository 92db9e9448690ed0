import Distributed
internal import Transport

/// The worker's end of its effects, a distributed actor the host sends messages to on the
/// effects connection: start or cancel an effect body, the host processed an action, a sleep
/// on the host's clock is over, the answer to a dependency question.
///
/// Every method is a message (it returns nothing and cannot throw): the host does not wait.
distributed actor WorkerEffectsEndpoint {
  typealias ActorSystem = SocketActorSystem

  /// The name the worker hosts it under, which the host knows.
  static let id = SocketActorID(number: 2)

  private let effects: WeakBox<WorkerEffects>

  init(effects: WeakBox<WorkerEffects>, actorSystem: SocketActorSystem) {
    self.effects = effects
    self.actorSystem = actorSystem
  }

  distributed func start(run: UInt64) { receive(.start(run: run)) }
  distributed func cancel(run: UInt64) { receive(.cancel(run: run)) }
  distributed func processed(sequence: UInt64, tookOutcome: Bool) {
    receive(.processed(sequence: sequence, tookOutcome: tookOutcome))
  }
  distributed func woke(token: UInt64) { receive(.woke(token: token)) }
  distributed func reportSettling() { receive(.reportSettling) }
  distributed func ping(token: UInt64) { receive(.ping(token: token)) }
  distributed func answer(token: UInt64, _ answer: Wire.DependencyAnswer) { receive(.answer(token: token, answer)) }

  private func receive(_ message: Wire.EffectMessage) {
    effects.value?.receive(message)
  }
}

extension WorkerEffectsEndpoint: DirectlyCallable {
  /// The messages of every effect action: resolved once per connection.
  static let directTargets: [String: DirectTarget<WorkerEffectsEndpoint>] = [
    "processed(sequence:tookOutcome:)": DirectTarget { endpoint, arguments in
      try await endpoint.processed(sequence: arguments.next(), tookOutcome: arguments.next())
    },
    "start(run:)": DirectTarget { endpoint, arguments in try await endpoint.start(run: arguments.next()) },
  ]
}

extension WorkerEffectsEndpoint {
  /// Sends `message` to the worker's endpoint: the host's half of the effects protocol.
  nonisolated func post(_ message: Wire.EffectMessage) throws {
    try callSynchronously { [self] in
      switch message {
      case let .start(run): try await start(run: run)
      case let .cancel(run): try await cancel(run: run)
      case let .processed(sequence, tookOutcome): try await processed(sequence: sequence, tookOutcome: tookOutcome)
      case let .woke(token): try await woke(token: token)
      case .reportSettling: try await reportSettling()
      case let .ping(token): try await ping(token: token)
      case let .answer(token, answer): try await self.answer(token: token, answer)
      case .action, .finished, .sleep, .settled, .pong, .question, .warning:
        throw DistributionError.protocolViolation("the host does not send \(message)")
      }
    }
  }
}
