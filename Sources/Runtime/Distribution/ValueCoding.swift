import Transport

/// How values of one type cross a process: encoders made once, where the type is known to be
/// `Codable` although the generic code that holds it does not require it.
struct ValueCoding<Value>: Sendable {
  let encode: @Sendable (Value) throws -> [UInt8]
  let decode: @Sendable ([UInt8]) throws -> Value

  /// Nil when `Value` is not `Codable`.
  init?(_: Value.Type) {
    guard let codable = Value.self as? any (Codable & SendableMetatype).Type else { return nil }
    self = Self.make(codable)
  }

  private init(
    encode: @escaping @Sendable (Value) throws -> [UInt8],
    decode: @escaping @Sendable ([UInt8]) throws -> Value
  ) {
    self.encode = encode
    self.decode = decode
  }

  private static func make<C: Codable & SendableMetatype>(_: C.Type) -> Self {
    // `C` is `Value` itself, opened from the cast above, so these casts cannot fail.
    Self(
      encode: { try BinaryEncoder().encode($0 as! C) },
      decode: { try BinaryDecoder().decode(C.self, from: $0) as! Value })
  }
}

/// Whether two values are equal, when their type says how; nil when it does not.
func isEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool? {
  guard let lhs = lhs as? any Equatable else { return nil }
  return lhs.isEqual(toValueOfSameType: rhs)
}

extension Equatable {
  fileprivate func isEqual(toValueOfSameType other: Any) -> Bool {
    guard let other = other as? Self else { return false }
    return self == other
  }
}
