import Distributed
internal import Transport

/// The host's end of one worker's effects, a distributed actor the worker sends messages to
/// on the effects connection: an effect action with the outcome the worker computed for it,
/// an effect body finished, a sleep on the host's clock, settling, a question about a
/// dependency the host answers, a runtime warning.
///
/// Every method is a message (it returns nothing and cannot throw); it runs on the thread
/// that reads the connection, which no host reducer ever waits for.
distributed actor HostEndpoint {
  typealias ActorSystem = SocketActorSystem

  /// The name the host hosts it under, which the worker knows.
  static let id = SocketActorID(number: 3)

  private let effects: WeakBox<HostEffects>

  init(effects: WeakBox<HostEffects>, actorSystem: SocketActorSystem) {
    self.effects = effects
    self.actorSystem = actorSystem
  }

  distributed func action(_ action: Wire.EffectAction) {
    receive(.action(run: action.run, sequence: action.sequence, bytes: action.bytes, outcome: action.outcome))
  }
  distributed func finished(run: UInt64) { receive(.finished(run: run)) }
  distributed func sleep(run: UInt64, token: UInt64, nanoseconds: UInt64) {
    receive(.sleep(run: run, token: token, nanoseconds: nanoseconds))
  }
  distributed func settled(count: UInt64) { receive(.settled(count: count)) }
  distributed func pong(token: UInt64) { receive(.pong(token: token)) }
  distributed func question(_ question: Wire.Question) {
    receive(.question(token: question.token, revision: question.revision, key: question.key, bytes: question.bytes))
  }
  distributed func warning(run: UInt64, message: String) { receive(.warning(run: run, message: message)) }

  private func receive(_ message: Wire.EffectMessage) {
    effects.value?.receive(message)
  }
}

extension HostEndpoint: DirectlyCallable {
  /// The messages of every effect action: resolved once per connection.
  static let directTargets: [String: DirectTarget<HostEndpoint>] = [
    "action(_:)": DirectTarget { endpoint, arguments in try await endpoint.action(arguments.next()) },
    "finished(run:)": DirectTarget { endpoint, arguments in try await endpoint.finished(run: arguments.next()) },
  ]
}

extension HostEndpoint {
  /// Sends `message` to the host's endpoint: the worker's half of the effects protocol.
  nonisolated func post(_ message: Wire.EffectMessage) throws {
    try callSynchronously { [self] in
      switch message {
      case let .action(run, sequence, bytes, outcome):
        try await action(Wire.EffectAction(run: run, sequence: sequence, bytes: bytes, outcome: outcome))
      case let .finished(run): try await finished(run: run)
      case let .sleep(run, token, nanoseconds): try await sleep(run: run, token: token, nanoseconds: nanoseconds)
      case let .settled(count): try await settled(count: count)
      case let .pong(token): try await pong(token: token)
      case let .question(token, revision, key, bytes):
        try await question(Wire.Question(token: token, revision: revision, key: key, bytes: bytes))
      case let .warning(run, message): try await warning(run: run, message: message)
      case .start, .cancel, .processed, .woke, .reportSettling, .ping, .answer:
        throw DistributionError.protocolViolation("a worker does not send \(message)")
      }
    }
  }
}
