#if canImport(Glibc)
  import Glibc
#endif
import Synchronization

/// Offers distributed actors to other processes of this user on a socket path: each connection
/// from a process of the same user gets a `SocketActorSystem` of its own, on which `host`
/// places the actors it offers; connections from other users are closed at once.
///
/// ```swift
/// let listener = try ActorListener(path: directory.path(for: "control")) { system in
///   _ = system.hosting(Control.id) { Control(actorSystem: $0) }
/// }
/// ```
package final class ActorListener: Sendable {
  package let path: String
  private let state = Mutex(State())

  private struct State {
    var isStopped = false
    var systems: [ObjectIdentifier: SocketActorSystem] = [:]
  }

  /// How long the accepting thread waits at a time, and so how soon it sees `stop()`.
  private static let acceptWait: Int32 = 100

  package init(path: String, host: @escaping @Sendable (SocketActorSystem) -> Void) throws(TransportError) {
    let listener = ListenerBox(listener: try UnixListener(path: path))
    self.path = listener.listener.path
    // The thread holds the listener until `stop()` ends it.
    DetachedThread.run { [self] in
      defer { listener.listener.close() }
      while !state.withLock({ $0.isStopped }) {
        let socket: UnixSocket
        switch Result(catching: { () throws(TransportError) in try listener.listener.accept(timeout: Self.acceptWait) }) {
        case let .success(accepted): socket = accepted
        case .failure(.timedOut): continue
        case .failure: return
        }
        guard (try? socket.peerCredentials())?.uid == getuid() else {
          socket.close()
          continue
        }
        // A connection that ends is forgotten, so that its descriptor is closed at once.
        let name = SystemName()
        let system = SocketActorSystem(connection: FramedConnection(socket)) { [weak self] _ in
          self?.forget(name.id.withLock { $0 })
        }
        name.id.withLock { $0 = ObjectIdentifier(system) }
        host(system)
        let isStopped = state.withLock { state in
          if !state.isStopped { state.systems[ObjectIdentifier(system)] = system }
          return state.isStopped
        }
        if isStopped { system.close() }
      }
    }
  }

  private func forget(_ system: ObjectIdentifier?) {
    guard let system else { return }
    _ = state.withLock { $0.systems.removeValue(forKey: system) }
  }

  /// Stops accepting, ends every connection, and removes the socket file.
  package func stop() {
    let systems = state.withLock { state in
      state.isStopped = true
      defer { state.systems = [:] }
      return Array(state.systems.values)
    }
    for system in systems { system.close() }
  }
}

/// The identity of a system, known once the system exists, for the handler it was made with.
private final class SystemName: Sendable {
  let id = Mutex<ObjectIdentifier?>(nil)
}

/// The listener, handed to the accepting thread, which alone uses and closes it.
private final class ListenerBox: @unchecked Sendable {
  // Safe: after `ActorListener.init` hands it over, only the accepting thread touches it.
  let listener: UnixListener
  init(listener: UnixListener) { self.listener = listener }
}
