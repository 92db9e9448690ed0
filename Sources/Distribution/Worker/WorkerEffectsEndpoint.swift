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
  /// Every message, by name: the host posts them from synchronous code (`post(_:)`).
  static let directTargets: [String: DirectTarget<WorkerEffectsEndpoint>] = [
    "start(run:)": DirectTarget { endpoint, arguments in try await endpoint.start(run: arguments.next()) },
    "cancel(run:)": DirectTarget { endpoint, arguments in try await endpoint.cancel(run: arguments.next()) },
    "processed(sequence:tookOutcome:)": DirectTarget { endpoint, arguments in
      try await endpoint.processed(sequence: arguments.next(), tookOutcome: arguments.next())
    },
    "woke(token:)": DirectTarget { endpoint, arguments in try await endpoint.woke(token: arguments.next()) },
    "reportSettling()": DirectTarget { endpoint, _ in try await endpoint.reportSettling() },
    "ping(token:)": DirectTarget { endpoint, arguments in try await endpoint.ping(token: arguments.next()) },
    "answer(token:_:)": DirectTarget { endpoint, arguments in
      try await endpoint.answer(token: arguments.next(), arguments.next())
    },
  ]
}

extension WorkerEffectsEndpoint {
  /// Sends `message` to the worker's endpoint from synchronous code, without a task: the
  /// host's half of the effects protocol.
  nonisolated func post(_ message: Wire.EffectMessage) throws {
    var arguments = ByteWriter()
    let method: String
    switch message {
    case let .start(run): (method, arguments) = ("start(run:)", Self.arguments(run))
    case let .cancel(run): (method, arguments) = ("cancel(run:)", Self.arguments(run))
    case let .processed(sequence, tookOutcome):
      method = "processed(sequence:tookOutcome:)"
      sequence.write(to: &arguments)
      tookOutcome.write(to: &arguments)
    case let .woke(token): (method, arguments) = ("woke(token:)", Self.arguments(token))
    case .reportSettling: method = "reportSettling()"
    case let .ping(token): (method, arguments) = ("ping(token:)", Self.arguments(token))
    case let .answer(token, answer):
      method = "answer(token:_:)"
      token.write(to: &arguments)
      answer.write(to: &arguments)
    case .action, .finished, .sleep, .settled, .pong, .question, .warning:
      throw DistributionError.protocolViolation("the host does not send \(message)")
    }
    try actorSystem.post(Self.id, method: method, arguments: arguments.bytes)
  }

  private static func arguments(_ number: UInt64) -> ByteWriter {
    var writer = ByteWriter()
    number.write(to: &writer)
    return writer
  }
}
