import Transport

/// Whether the peer closes `socket` within `milliseconds`, reading and dropping whatever it
/// sends before; false when it has not by then, so that a test of a peer that should hang up
/// fails instead of hanging.
///
/// ```swift
/// #expect(try reachesEnd(socket, within: 10_000))
/// ```
package func reachesEnd(_ socket: UnixSocket, within milliseconds: Int32) throws -> Bool {
  try FramedConnection(socket).setReceiveTimeout(milliseconds: milliseconds)
  var bytes = [UInt8](repeating: 0, count: 256)
  while true {
    do {
      if try bytes.withUnsafeMutableBytes({ try socket.read(into: $0) }) == 0 { return true }
    } catch TransportError.timedOut {
      return false
    }
  }
}
