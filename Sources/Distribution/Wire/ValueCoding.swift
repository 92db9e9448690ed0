internal import Transport

/// How values of one type cross a process: encoders and patches made once, where the type is
/// known to be `Codable` although the generic code that holds it does not require it.
struct ValueCoding<Value>: Sendable {
  let encode: @Sendable (Value) throws -> [UInt8]
  let decode: @Sendable ([UInt8]) throws -> Value
  /// The patch from an old value to a new one; nil when they are equal.
  let patch: @Sendable (_ old: Value?, _ new: Value) throws -> StatePatch?
  /// An old value (nil: none yet) with a patch applied.
  let apply: @Sendable (_ patch: StatePatch, _ old: Value?) throws -> Value
  /// The value as an instrument that wants names sees it (`BoundaryInstrument.wantsActionNames`):
  /// its description, cut short.
  let name: @Sendable (Value) -> String

  /// Nil when `Value` is not `Codable`.
  init?(_: Value.Type) {
    guard let codable = Value.self as? any (Codable & SendableMetatype).Type else { return nil }
    self = Self.make(codable)
  }

  private init(
    encode: @escaping @Sendable (Value) throws -> [UInt8],
    decode: @escaping @Sendable ([UInt8]) throws -> Value,
    patch: @escaping @Sendable (Value?, Value) throws -> StatePatch?,
    apply: @escaping @Sendable (StatePatch, Value?) throws -> Value,
    name: @escaping @Sendable (Value) -> String
  ) {
    self.encode = encode
    self.decode = decode
    self.patch = patch
    self.apply = apply
    self.name = name
  }

  private static func make<C: Codable & SendableMetatype>(_: C.Type) -> Self {
    // `C` is `Value` itself, opened from the cast above, so these casts cannot fail.
    let encode: @Sendable (Value) throws -> [UInt8] = { try BinaryEncoder().encode($0 as! C) }
    let decode: @Sendable ([UInt8]) throws -> Value = { try BinaryDecoder().decode(C.self, from: $0) as! Value }
    let name: @Sendable (Value) -> String = { Self.describe($0) }
    var memoizedEncode = encode
    var memoizedDecode = decode
    var memoizedName = name
    if let memo = TrivialValueMemo<Value>() {
      memoizedEncode = { try memo.encode($0, by: encode) }
      memoizedDecode = { try memo.decode($0, by: decode) }
      // Reflection describes an action anew each time, for microseconds: named on every
      // crossing while a trace is written.
      memoizedName = { memo.name(of: $0, by: name) }
    }
    return Self(
      encode: memoizedEncode,
      decode: memoizedDecode,
      patch: { old, new in
        guard let old else { return try StatePatch(whole: new as! C) }
        return try StatePatch(from: old as! C, to: new as! C)
      },
      apply: { patch, old in try patch.applied(to: old.map { $0 as! C }) as! Value },
      name: memoizedName)
  }

  /// `value`'s description, cut short.
  private static func describe(_ value: Value) -> String {
    let description = String(describing: value)
    return description.count > 80 ? description.prefix(79) + "…" : description
  }
}
