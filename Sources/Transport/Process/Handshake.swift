import CSystem
#if canImport(Glibc)
  import Glibc
#endif

/// The first exchange on a new connection: the worker sends its launch secret, the host checks
/// it and the kernel's word on who connected (same user; the launched process, when known),
/// and answers. Anything else is refused and the connection closed.
package enum Handshake {
  static let helloKind: UInt8 = 0xF0
  static let welcomeKind: UInt8 = 0xF1

  /// The worker's side: send the secret, wait for the welcome.
  package static func introduce(on connection: FramedConnection, secret: LaunchSecret) throws(TransportError) {
    try connection.send(Frame(kind: helloKind, payload: Array(secret.text.utf8)))
    guard let reply = try connection.receive(), reply.kind == welcomeKind else {
      throw .authenticationFailed(.notWelcomed)
    }
  }

  /// The host's side: check the peer, then welcome it. Waits at most `timeout` seconds for
  /// the secret, so a silent client cannot hold the listener.
  package static func verify(
    _ connection: FramedConnection, secret: LaunchSecret, expectedPID: pid_t? = nil,
    timeout: Int = 5
  ) throws(TransportError) -> PeerCredentials {
    let credentials = try connection.socket.peerCredentials()
    guard credentials.uid == getuid() else {
      connection.socket.close()
      throw .authenticationFailed(.otherUser(uid: credentials.uid, expected: getuid()))
    }
    if let expectedPID, credentials.pid != expectedPID {
      connection.socket.close()
      throw .authenticationFailed(.otherProcess(pid: credentials.pid, expected: expectedPID))
    }
    let hello: Frame?
    do {
      hello = try connection.receive(within: Int32(clamping: timeout * 1_000))
    } catch {
      connection.socket.close()
      throw .authenticationFailed(.noHello(pid: credentials.pid, error: "\(error)"))
    }
    guard let hello, hello.kind == helloKind, secret.matches(hello.payload) else {
      connection.socket.close()
      throw .authenticationFailed(.wrongSecret(pid: credentials.pid))
    }
    try connection.send(Frame(kind: welcomeKind, payload: []))
    return credentials
  }
}

/// Waits for a process to exit without polling: a pidfd becomes readable when it does.
package enum ProcessWatch {
  /// Blocks until process `pid` has exited (or was never there); false if it is still
  /// running after `milliseconds`.
  package static func waitForExit(of pid: pid_t, milliseconds: Int32) -> Bool {
    let descriptor = bulkhead_pidfd_open(pid)
    guard descriptor >= 0 else { return true }
    defer { close(descriptor) }
    var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&request, 1, milliseconds) == 1
  }
}
