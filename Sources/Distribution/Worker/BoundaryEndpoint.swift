import Distributed
import Foundation
internal import Transport

/// The worker's end of a boundary, a distributed actor the host calls on the control
/// connection: what the worker serves, and the host's requests (run an action on a child
/// state, forget a state, answer a ping), each answered with its reply.
///
/// The host's reducer calls it synchronously and reads the answer on its own thread; here it
/// runs on the thread that reads the connection.
///
/// ```swift
/// let endpoint = try BoundaryEndpoint.resolve(id: BoundaryEndpoint.id, using: control)
/// let answer = try endpoint.handleSynchronously(.ping)
/// ```
distributed actor BoundaryEndpoint {
  typealias ActorSystem = SocketActorSystem

  /// Bound to its connection: calls run on the thread that reads them (`ConnectionBound`).
  nonisolated var unownedExecutor: UnownedSerialExecutor { actorSystem.executor.lane.asUnownedSerialExecutor() }

  /// The name the worker hosts it under, which the host knows.
  static let id = SocketActorID(number: 1)

  private let server: any BoundaryServer

  init(serving server: any BoundaryServer, actorSystem: SocketActorSystem) {
    self.server = server
    self.actorSystem = actorSystem
  }

  /// What the worker serves, or why it serves nothing: the host refuses a worker built from
  /// other code, and says why a worker refused.
  distributed func hello() -> Wire.Hello {
    server.hello
  }

  /// The reply to `request`, with the runtime warnings raised while handling it; held as
  /// long as the request asks (`slow`: a slow worker as the host's reducer sees it, whose
  /// wait for the reply allows for the hold).
  distributed func handle(_ request: Wire.Request) -> Wire.Answer {
    let answer = server.handle(request)
    if case let .run(_, _, _, _, _, hold) = request, hold > 0 {
      // On the worker's thread that reads the host's requests, which nothing else waits for.
      Thread.sleep(forTimeInterval: Double(hold) / 1_000)
    }
    return answer
  }
}

extension BoundaryEndpoint: ConnectionBound {
  /// The host calls both from its reducer's thread, without a task.
  static let directTargets = [helloTarget, handleTarget]

  static let helloTarget = DirectTarget<BoundaryEndpoint>(of: { try await $0.hello() }) { endpoint, _ in
    try await endpoint.hello()
  }

  static let handleTarget = DirectTarget<BoundaryEndpoint>(
    of: { try await $0.handle(.ping) },
    onReadingThread: { endpoint, arguments in endpoint.handle(try arguments.next()) })
}

extension BoundaryEndpoint {
  /// What the worker serves, or why it serves nothing, asked from synchronous code on a
  /// system read by its callers.
  nonisolated func helloSynchronously() throws -> Wire.Hello {
    try Wire.decode(Wire.Hello.self, from: actorSystem.call(Self.id, Self.helloTarget, arguments: []))
  }

  /// The worker's answer to `request`, asked from synchronous code on a system read by its
  /// callers: the reducer's thread writes the call and reads the reply.
  nonisolated func handleSynchronously(_ request: Wire.Request) throws -> Wire.Answer {
    try Wire.decode(Wire.Answer.self, from: actorSystem.call(Self.id, Self.handleTarget, arguments: Wire.encode(request)))
  }
}
