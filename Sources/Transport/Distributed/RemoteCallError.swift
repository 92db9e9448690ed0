/// Why a remote call failed, when the method itself did not throw an error that crosses as
/// itself (`CodableError`). The peer's refusals cross back as these values, so a caller
/// matches on the case; `description` is the one place their words are made.
package enum RemoteCallError: CodableError, Equatable, CustomStringConvertible {
  /// The remote method threw an error that does not cross as itself: its type, as Swift
  /// names it, and its description.
  case remoteThrew(type: String, description: String)
  /// The peer's process hosts no actor `id`.
  case noSuchActor(SocketActorID)
  /// The peer's actor, of type `actor`, has no distributed method `target`.
  case noSuchMethod(actor: String, target: String)
  /// A direct target of the peer's actor names no distributed method.
  case brokenDirectTarget(MethodTargetError)
  /// The call substitutes a generic parameter (`substitution`): this system sends no types.
  case genericMethod(substitution: String)
  /// The peer already holds `limit` calls for well-known actors it does not host yet.
  case tooManyWaitingCalls(limit: Int)
  /// No reply to the target came within the duration.
  case deadlineExceeded(String, Duration)
  /// The connection to the peer is gone.
  case peerDisconnected

  package var description: String {
    switch self {
    case let .remoteThrew(type, description): "The remote call threw \(type): \(description)"
    case let .noSuchActor(id): "The peer's process has no actor \(id)."
    case let .noSuchMethod(actor, target): "\(actor) has no distributed method \(target)."
    case let .brokenDirectTarget(error): "The peer cannot call its method: \(error)."
    case let .genericMethod(substitution):
      "Generic distributed methods are not supported (the call substitutes \(substitution))."
    case let .tooManyWaitingCalls(limit): "The peer already holds \(limit) calls for actors it does not host yet."
    case let .deadlineExceeded(target, timeout): "No reply to \(target) within \(timeout)."
    case .peerDisconnected: "The peer process disconnected; the call may or may not have run."
    }
  }
}
