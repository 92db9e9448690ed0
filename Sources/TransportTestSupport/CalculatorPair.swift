import Transport

/// Two actor systems in this process over a socket pair: the callee hosts a `Calculator`
/// (unless `hostsCalculator` is false, for a test that hosts it later), and the caller holds a
/// proxy to it. Close both systems when done.
///
/// ```swift
/// let (caller, callee, calculator) = try calculatorPair(reading: .byCaller)
/// defer { caller.close(); callee.close() }
/// ```
package func calculatorPair(
  reading: SocketActorSystem.Reading = .byThread, callTimeout: Duration = .seconds(10), hostsCalculator: Bool = true,
  onClose: @escaping @Sendable (TransportError?) -> Void = { _ in }
) throws -> (caller: SocketActorSystem, callee: SocketActorSystem, calculator: Calculator) {
  let (left, right) = try UnixSocket.pair()
  let caller = SocketActorSystem(
    connection: FramedConnection(left), callTimeout: callTimeout, reading: reading, onClose: onClose)
  let callee = SocketActorSystem(connection: FramedConnection(right))
  if hostsCalculator { _ = callee.hosting(Calculator.id) { Calculator(actorSystem: $0) } }
  return (caller, callee, try Calculator.resolve(id: Calculator.id, using: caller))
}
