/// A thrown error as it crosses back to the caller: what a person reads (type and
/// description) always, and the value itself when its type is a `CodableError`.
struct ThrownError: WireCodable, Equatable {
  /// The error's type as Swift prints it (`Module.Type`).
  let type: String
  let description: String
  /// The error itself, for a `CodableError`.
  let value: EncodedError?

  /// A `CodableError`'s bytes, and its type's mangled name, which the caller looks up.
  struct EncodedError: Equatable {
    let typeName: String
    let bytes: [UInt8]
  }

  /// `error` as thrown while running a call from the peer. A `RemoteCallError` of a call the
  /// method made in turn is that other call's failure, not this one's: it crosses as prose.
  init(thrownBy error: any Error) {
    if let refusal = error as? Refusal {
      self.init(refusing: refusal.reason)
    } else {
      self.init(error, encoding: error is RemoteCallError ? nil : error as? any CodableError)
    }
  }

  /// This system refusing a call before its method ran.
  init(refusing refusal: RemoteCallError) {
    self.init(refusal, encoding: refusal)
  }

  private init(_ error: any Error, encoding codable: (any CodableError)?) {
    type = String(reflecting: Swift.type(of: error))
    description = "\(error)"
    // An error that does not encode still crosses, as its type and description.
    if let codable, let name = _mangledTypeName(Swift.type(of: codable)), let bytes = try? BinaryEncoder().encode(codable) {
      value = EncodedError(typeName: name, bytes: bytes)
    } else {
      value = nil
    }
  }

  /// What the caller throws: the error itself when its type is a `CodableError` of this
  /// process and its bytes decode, else `RemoteCallError.remoteThrew`.
  var error: any Error {
    guard let value, let type = Self.codableError(named: value.typeName),
      let decoded = try? Self.decode(type, from: value.bytes)
    else { return RemoteCallError.remoteThrew(type: type, description: description) }
    return decoded
  }

  /// The `CodableError` type whose mangled name is `name`, if this process has one (a name
  /// from the peer: `PeerTypeName` says which are looked up).
  private static func codableError(named name: String) -> (any CodableError.Type)? {
    PeerTypeName.type(named: name) as? any CodableError.Type
  }

  private static func decode<Value: CodableError>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
    try BinaryDecoder().decode(type, from: bytes)
  }

  func write(to writer: inout ByteWriter) {
    writer.write(type)
    writer.write(description)
    writer.write(value != nil)
    if let value {
      writer.write(value.typeName)
      writer.write(bytes: value.bytes)
    }
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    type = try reader.readString()
    description = try reader.readString()
    value = try reader.readBool() ? EncodedError(typeName: try reader.readString(), bytes: try reader.readBytes()) : nil
  }
}

/// This system refusing a call from the peer before its method ran: thrown where the call is
/// run, so that the reason crosses as a `RemoteCallError` the caller can match.
struct Refusal: Error {
  let reason: RemoteCallError
}
