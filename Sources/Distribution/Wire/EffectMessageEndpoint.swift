import Distributed
internal import Transport

/// One end of a worker's effects connection: a distributed actor bound to the connection
/// whose one method, `deliver(_:)`, is a message of the direction that ends here (`Message`).
/// The peer posts to it from synchronous code (`post(_:)`), and the reading thread runs it as
/// it is read. `HostEndpoint` (worker → host) and `WorkerEffectsEndpoint` (host → worker) are
/// its two ends.
///
/// ```swift
/// try host.post(.finished(run: 3, lastAction: 12))
/// ```
protocol EffectMessageEndpoint: ConnectionBound {
  /// What the peer sends this end: the one direction it can decode.
  associatedtype Message: WireCodable & Sendable

  /// The name the actor is hosted under, which the peer knows.
  static var id: SocketActorID { get }

  /// `deliver(_:)`, kept by each conforming type (`deliveringTarget()`): its target is read
  /// once per type.
  static var deliverTarget: DirectTarget<Self> { get }

  /// Any message of this direction: the one call through which the target of `deliver(_:)`
  /// is captured.
  static var anyMessage: Message { get }

  /// Hands the peer's message on; it returns nothing and cannot throw, so the peer does not wait.
  distributed func deliver(_ message: Message)
}

extension EffectMessageEndpoint {
  static var directTargets: [DirectTarget<Self>] { [deliverTarget] }

  /// `deliver(_:)`, run on the reading thread as it is read.
  static func deliveringTarget() -> DirectTarget<Self> {
    DirectTarget(of: { try await $0.deliver(anyMessage) }, onReadingThread: { endpoint, arguments in
      endpoint.deliver(try arguments.next())
    })
  }

  /// Sends `message` to the peer's endpoint from synchronous code, without a task.
  nonisolated func post(_ message: Message) throws {
    try actorSystem.post(Self.id, Self.deliverTarget, each: CollectionOfOne(Wire.encode(message)))
  }

  /// Sends `messages` in order, in one write.
  nonisolated func post(_ messages: [Message]) throws {
    try actorSystem.post(Self.id, Self.deliverTarget, each: messages.lazy.map(Wire.encode))
  }
}
