import Dispatch
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
  let (socket, peer) = try UnixSocket.pair()
  let system = SocketActorSystem(connection: FramedConnection(socket))
  let first = Greeter(actorSystem: system)
  let second = Greeter(actorSystem: system)
  #expect(first.id != second.id)
  #expect(first.id.number >= SocketActorID.firstAssigned)
  #expect(try Greeter.resolve(id: first.id, using: system) === first)
  withExtendedLifetime(peer) {}
}

/// The peer's end closing is noticed by the system's reading thread at a moment of its own:
/// resolving a local actor must give the same answer before and after it.
@Test func aLocalActorStillResolvesToItselfAfterThePeerLeft() throws {
  let (socket, peer) = try UnixSocket.pair()
  let closed = DispatchSemaphore(value: 0)
  let system = SocketActorSystem(connection: FramedConnection(socket)) { _ in closed.signal() }
  let before = Greeter(actorSystem: system)
  peer.close()
  #expect(closed.wait(timeout: .now() + 10) == .success, "the system never noticed the peer leave")
  let after = Greeter(actorSystem: system)
  #expect(try Greeter.resolve(id: before.id, using: system) === before)
  #expect(try Greeter.resolve(id: after.id, using: system) === after)
}

/// After the connection ends, the system holds its actors weakly: one nobody else holds is
/// freed, and its id no longer resolves to it.
@Test func anActorReleasedAfterThePeerLeftIsFreed() throws {
  let (socket, peer) = try UnixSocket.pair()
  let closed = DispatchSemaphore(value: 0)
  let system = SocketActorSystem(connection: FramedConnection(socket)) { _ in closed.signal() }
  weak var released: Greeter?
  var id: SocketActorID?
  do {
    let greeter = Greeter(actorSystem: system)
    released = greeter
    id = greeter.id
    peer.close()
    #expect(closed.wait(timeout: .now() + 10) == .success, "the system never noticed the peer leave")
  }
  #expect(released == nil)
  let resolved = try Greeter.resolve(id: try #require(id), using: system)
  #expect(!__isLocalActor(resolved))
}
