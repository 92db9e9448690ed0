import CSystem

#if canImport(Glibc)
  import Glibc
#endif

/// A forked worker's two connections to its host (requests, then effects), made by the host as
/// socket pairs and handed to the worker with the request that forks it (`WorkerTemplate`), so
/// that no listener waits and no connection is accepted or proved: the host made both ends,
/// and the other ends reach only the template and, through it, the worker it forks.
///
/// ```swift
/// let handed = try HandedConnections()
/// let worker = try WorkerProcess(name: "w0-0", forkedBy: template, request: "timers", handing: handed) { _ in }
/// try handed.control.send(frame)
/// ```
package final class HandedConnections {
  /// The host's end of the connection that carries its requests.
  package let control: FramedConnection
  /// The host's end of the connection that carries the worker's effects.
  package let effects: FramedConnection
  /// The worker's ends, in the order the template places them; closed once handed over.
  private var workerEnds: [UnixSocket]

  /// Makes both socket pairs.
  package init() throws(TransportError) {
    let (control, workerControl) = try UnixSocket.pair()
    let (effects, workerEffects) = try UnixSocket.pair()
    self.control = FramedConnection(control)
    self.effects = FramedConnection(effects)
    workerEnds = [workerControl, workerEffects]
  }

  /// The worker's ends, to send with the request that forks it.
  var workerDescriptors: [Int32] { workerEnds.map(\.descriptor) }

  /// Closes the host's copies of the worker's ends once they have gone with the request (or
  /// could not): otherwise a worker that dies would leave its connections open, and the host
  /// would not see them end.
  func closeWorkerEnds() {
    for end in workerEnds { end.close() }
    workerEnds = []
  }

  /// The worker's side: its connection `which`, which its template placed as descriptor 3
  /// (control) or 4 (effects), checked to be a socket whose other end its host made (its
  /// parent: a forked worker's parent is the host, `CLONE_PARENT`).
  ///
  /// - Throws: `TransportError.authenticationFailed(.notHanded)` when the descriptor is not
  ///   such a socket.
  static func adopt(_ which: WorkerLaunch.HostConnection) throws(TransportError) -> FramedConnection {
    let descriptor =
      switch which {
      case .control: Int32(bulkhead_template_control_descriptor)
      case .effects: Int32(bulkhead_template_effects_descriptor)
      }
    return FramedConnection(try adopt(descriptor))
  }

  /// Descriptor `descriptor` as a socket, if it is a Unix stream socket whose peer is the host.
  private static func adopt(_ descriptor: Int32) throws(TransportError) -> UnixSocket {
    func option(_ name: Int32) -> Int32? {
      var value: Int32 = 0
      var length = socklen_t(MemoryLayout<Int32>.size)
      return getsockopt(descriptor, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
    }
    func refused(_ reason: String) -> TransportError {
      .authenticationFailed(.notHanded(descriptor: descriptor, reason: reason))
    }
    guard let domain = option(SO_DOMAIN) else { throw refused("not a socket (\(String(cString: strerror(errno))))") }
    guard domain == AF_UNIX, option(SO_TYPE) == Int32(SOCK_STREAM.rawValue) else {
      throw refused("not a Unix stream socket")
    }
    // Owned from here: a socket refused is closed as the worker fails.
    let socket = UnixSocket(descriptor: descriptor)
    let credentials: PeerCredentials
    do {
      credentials = try socket.peerCredentials()
    } catch {
      throw refused("its peer is unknown (\(error))")
    }
    guard credentials.pid == getppid() else {
      throw refused("its peer is process \(credentials.pid), not this worker's host (\(getppid()))")
    }
    return socket
  }
}
