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
    guard let codable = Value.self as? any (Codable & SendableMetatype).Type,
      // Made for the type opened from the cast, which is `Value` itself: one cast, here, and
      // none on each crossing.
      let coding = Self.made(for: codable) as? Self
    else { return nil }
    self = coding
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

  /// `make(_:)`'s coding with its type left out, so that an opened type can ask for it.
  private static func made<C: Codable & SendableMetatype>(for type: C.Type) -> Any { make(type) }

  private static func make<C: Codable & SendableMetatype>(_: C.Type) -> ValueCoding<C> {
    let encode: @Sendable (C) throws -> [UInt8] = { try BinaryEncoder().encode($0) }
    let decode: @Sendable ([UInt8]) throws -> C = { try BinaryDecoder().decode(C.self, from: $0) }
    let name: @Sendable (C) -> String = { ValueCoding<C>.describe($0) }
    var memoizedEncode = encode
    var memoizedDecode = decode
    var memoizedName = name
    if let memo = TrivialValueMemo<C>() {
      memoizedEncode = { try memo.encode($0, by: encode) }
      memoizedDecode = { try memo.decode($0, by: decode) }
      // Reflection describes an action anew each time, for microseconds: named on every
      // crossing while a trace is written.
      memoizedName = { memo.name(of: $0, by: name) }
    }
    let layouts = StoredLayoutCache()
    return ValueCoding<C>(
      encode: memoizedEncode,
      decode: memoizedDecode,
      patch: { old, new in
        guard let old else { return try StatePatch(whole: new) }
        // The host asks on every action whether its copy moved from the worker's, and it
        // almost never has: the same bits are the same value, whatever the type.
        if areIdentical(old, new) { return nil }
        if let layout = layouts.layout(of: C.self, sample: new) { return try layout.difference(from: old, to: new, depth: 0) }
        return try StatePatch(from: old, to: new)
      },
      apply: { patch, old in
        if case let .fields(fields) = patch, let old, let layout = layouts.layout(of: C.self, sample: old) {
          return try layout.applying(fields, to: old)
        }
        return try patch.applied(to: old)
      },
      name: memoizedName)
  }

  /// `value`'s description, cut short.
  private static func describe(_ value: Value) -> String {
    let description = String(describing: value)
    return description.count > 80 ? description.prefix(79) + "…" : description
  }
}

/// Whether two values have the same bits: then they are the same value (the same references,
/// the same inline fields), without comparing anything they refer to.
private func areIdentical<Value>(_ lhs: Value, _ rhs: Value) -> Bool {
  withUnsafeBytes(of: lhs) { lhs in withUnsafeBytes(of: rhs) { rhs in lhs.elementsEqual(rhs) } }
}
