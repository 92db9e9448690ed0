internal import Transport

extension Wire {
  /// An error thrown on the host, as it crosses to a worker: its type and description always,
  /// and the value itself when its type is `Codable`, so that the worker throws the same
  /// value; otherwise the worker throws `RemoteCallError.remoteThrew(type:description:)`.
  ///
  /// ```swift
  /// let thrown = Wire.Thrown(error)   // on the host
  /// throw thrown.error                // in the worker
  /// ```
  struct Thrown: Equatable, Sendable {
    /// The error's type as Swift prints it (`Module.Type`).
    var type: String
    var description: String
    /// The error's mangled type name and its bytes, for a `Codable` error.
    var value: (typeName: String, bytes: [UInt8])?

    init(type: String, description: String, value: (typeName: String, bytes: [UInt8])?) {
      (self.type, self.description, self.value) = (type, description, value)
    }

    /// `error` as thrown on the host. A `Codable` error that does not encode (or whose type,
    /// being private, cannot be looked up by name) crosses as its type and description.
    init(_ error: any Error) {
      type = String(reflecting: Swift.type(of: error))
      description = "\(error)"
      if let codable = error as? any Error & Codable, let name = _mangledTypeName(Swift.type(of: codable)),
        !name.contains("$"), let bytes = try? BinaryEncoder().encode(codable)
      {
        value = (name, bytes)
      } else {
        value = nil
      }
    }

    /// What the worker throws: the error itself when its type is a `Codable` error of this
    /// process and its bytes decode, else `RemoteCallError.remoteThrew`. Only types that are
    /// errors and `Codable` are ever decoded.
    var error: any Error {
      guard let value, let type = PeerTypeName.type(named: value.typeName) as? any (Error & Codable).Type,
        let decoded = try? Self.decode(type, from: value.bytes)
      else { return RemoteCallError.remoteThrew(type: type, description: description) }
      return decoded
    }

    private static func decode<Value: Error & Codable>(_: Value.Type, from bytes: [UInt8]) throws -> Value {
      try BinaryDecoder().decode(Value.self, from: bytes)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
      lhs.type == rhs.type && lhs.description == rhs.description && lhs.value?.typeName == rhs.value?.typeName
        && lhs.value?.bytes == rhs.value?.bytes
    }
  }
}
