import Distributed
import Testing
import Transport

/// A distributed actor declared in this module, so that reading its `id` is safe (see the
/// note on `Calculator`).
private distributed actor Greeter {
  typealias ActorSystem = SocketActorSystem
  distributed func greet(_ name: String) -> String { "Hello, \(name)" }
}

@Test func actorsGetDistinctIDsAndResolveLocally() throws {
  let (socket, _) = try UnixSocket.pair()
  let system = SocketActorSystem(connection: FramedConnection(socket))
  let first = Greeter(actorSystem: system)
  let second = Greeter(actorSystem: system)
  #expect(first.id != second.id)
  #expect(first.id.number >= SocketActorID.firstAssigned)
  #expect(try Greeter.resolve(id: first.id, using: system) === first)
}
