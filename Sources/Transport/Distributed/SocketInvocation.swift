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

/// One direction of a connection, handed to exactly one owner.
final class ConnectionHalf: @unchecked Sendable {
  // Safe: the reading half is used only by the reader thread once the initializer hands it
  // over, or by whoever holds its `ReadSide`; the writing half only inside the system's
  // writer mutex. The two halves share the socket's descriptor, on which one reader and one
  // writer may act at the same time.
  let connection: FramedConnection
  init(connection: FramedConnection) { self.connection = connection }
}

/// Records the arguments of a call, each written by its own layout, one after another.
package struct SocketInvocationEncoder: DistributedTargetInvocationEncoder {
  package typealias SerializationRequirement = WireCodable
  var arguments = ByteWriter()

  package mutating func recordGenericSubstitution<T>(_ type: T.Type) throws {
    throw RemoteCallError.genericMethod(substitution: String(reflecting: type))
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
    try system?.send(.failure(id: call, error: ThrownError(thrownBy: error)))
  }
}
