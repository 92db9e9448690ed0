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
  /// Every message, by name: the worker posts them from synchronous code (`post(_:)`).
  static let directTargets: [String: DirectTarget<HostEndpoint>] = [
    "action(_:)": DirectTarget { endpoint, arguments in try await endpoint.action(arguments.next()) },
    "finished(run:)": DirectTarget { endpoint, arguments in try await endpoint.finished(run: arguments.next()) },
    "sleep(run:token:nanoseconds:)": DirectTarget { endpoint, arguments in
      try await endpoint.sleep(run: arguments.next(), token: arguments.next(), nanoseconds: arguments.next())
    },
    "settled(count:)": DirectTarget { endpoint, arguments in try await endpoint.settled(count: arguments.next()) },
    "pong(token:)": DirectTarget { endpoint, arguments in try await endpoint.pong(token: arguments.next()) },
    "question(_:)": DirectTarget { endpoint, arguments in try await endpoint.question(arguments.next()) },
    "warning(run:message:)": DirectTarget { endpoint, arguments in
      try await endpoint.warning(run: arguments.next(), message: arguments.next())
    },
  ]
}

extension HostEndpoint {
  /// Sends `message` to the host's endpoint from synchronous code, without a task: the
  /// worker's half of the effects protocol.
  nonisolated func post(_ message: Wire.EffectMessage) throws {
    var arguments = ByteWriter()
    let method: String
    switch message {
    case let .action(run, sequence, bytes, outcome):
      method = "action(_:)"
      Wire.EffectAction(run: run, sequence: sequence, bytes: bytes, outcome: outcome).write(to: &arguments)
    case let .finished(run):
      method = "finished(run:)"
      run.write(to: &arguments)
    case let .sleep(run, token, nanoseconds):
      method = "sleep(run:token:nanoseconds:)"
      for number in [run, token, nanoseconds] { number.write(to: &arguments) }
    case let .settled(count):
      method = "settled(count:)"
      count.write(to: &arguments)
    case let .pong(token):
      method = "pong(token:)"
      token.write(to: &arguments)
    case let .question(token, revision, key, bytes):
      method = "question(_:)"
      Wire.Question(token: token, revision: revision, key: key, bytes: bytes).write(to: &arguments)
    case let .warning(run, message):
      method = "warning(run:message:)"
      run.write(to: &arguments)
      message.write(to: &arguments)
    case .start, .cancel, .processed, .woke, .reportSettling, .ping, .answer:
      throw DistributionError.protocolViolation("a worker does not send \(message)")
    }
    try actorSystem.post(Self.id, method: method, arguments: arguments.bytes)
  }
}
