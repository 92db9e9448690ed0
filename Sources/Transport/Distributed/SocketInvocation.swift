import Distributed

/// The name of an actor, unique within its system: a number. Numbers below
/// `SocketActorID.firstAssigned` are left for well-known actors that both processes name.
package struct SocketActorID: Hashable, Codable, Sendable, CustomStringConvertible {
  package let number: UInt64
  package init(number: UInt64) { self.number = number }
  package var description: String { "actor-\(number)" }

  /// The first number `assignID` hands out.
  package static let firstAssigned: UInt64 = 1 << 32
}

/// Why a remote call failed.
package enum RemoteCallError: Error, Equatable, CustomStringConvertible {
  /// The remote actor threw; its error's description.
  case remote(String)
  /// No reply came in time.
  case deadlineExceeded(String, Duration)
  /// The connection to the peer is gone.
  case peerDisconnected

  package var description: String {
    switch self {
    case let .remote(message): "The remote call threw: \(message)"
    case let .deadlineExceeded(target, timeout): "No reply to \(target) within \(timeout)."
    case .peerDisconnected: "The peer process disconnected; the call may or may not have run."
    }
  }
}

/// One direction of a connection, handed to exactly one owner.
final class ConnectionHalf: @unchecked Sendable {
  // Safe: the reading half is used only by the reader thread once the initializer hands it
  // over; the writing half only inside the system's writer mutex. The two halves share the
  // socket's descriptor, on which one reader and one writer may act at the same time.
  let connection: FramedConnection
  init(connection: FramedConnection) { self.connection = connection }
}

/// Records the arguments of a call, each written by its own layout, one after another.
package struct SocketInvocationEncoder: DistributedTargetInvocationEncoder {
  package typealias SerializationRequirement = WireCodable
  var arguments = ByteWriter()

  package mutating func recordGenericSubstitution<T>(_ type: T.Type) throws {
    throw RemoteCallError.remote("Generic distributed methods are not supported.")
  }

  package mutating func recordArgument<Value: WireCodable>(_ argument: RemoteCallArgument<Value>) throws {
    argument.value.write(to: &arguments)
  }

  package mutating func recordErrorType<E: Error>(_ type: E.Type) throws {}
  package mutating func recordReturnType<R: WireCodable>(_ type: R.Type) throws {}
  package mutating func doneRecording() throws {}
}

/// Reads a call's arguments, one at a time, in the order they were recorded.
package struct SocketInvocationDecoder: DistributedTargetInvocationDecoder {
  package typealias SerializationRequirement = WireCodable
  var reader: ByteReader

  init(arguments: [UInt8]) { reader = ByteReader(arguments) }

  package mutating func decodeGenericSubstitutions() throws -> [any Any.Type] { [] }

  package mutating func decodeNextArgument<Argument: WireCodable>() throws -> Argument {
    try Argument(from: &reader)
  }

  package mutating func decodeErrorType() throws -> (any Any.Type)? { nil }
  package mutating func decodeReturnType() throws -> (any Any.Type)? { nil }
}

/// Sends the outcome of a call back to the caller.
package struct SocketResultHandler: DistributedTargetInvocationResultHandler {
  package typealias SerializationRequirement = WireCodable
  /// Where the outcome goes; nil drops it (`invokeLocally`).
  let system: SocketActorSystem?
  let call: UInt64

  package func onReturn<Success: WireCodable>(value: Success) async throws {
    var writer = ByteWriter()
    value.write(to: &writer)
    try system?.send(.reply(id: call, value: writer.bytes))
  }

  package func onReturnVoid() async throws {
    try system?.send(.reply(id: call, value: []))
  }

  package func onThrow<Err: Error>(error: Err) async throws {
    try system?.send(.failure(id: call, message: "\(error)"))
  }
}
