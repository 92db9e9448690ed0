internal import Transport

/// How a patch compares, and changes in place, one stored field of a type known when the
/// layout was found: the field's type opened once, so that each action works on typed
/// pointers, not on existentials.
///
/// An optional field patches as synthesized `Codable` encodes it: left out when nil, so nil
/// after a value is `.removed`, and a value after nil goes whole.
///
/// A field of a type the codec lays out itself (an integer, a float, `Bool`, `String`, data)
/// goes whole by `PrimitiveCoding`, in the bytes `BinaryEncoder` would write, without the
/// codec's tree and input or a layout lookup: the counter an action bumps costs a few
/// nanoseconds to patch on each side, not a trip through `Codable`.
struct StoredFieldCoding: Sendable {
  /// The patch from the field at the first pointer to the field at the second, at a depth;
  /// nil when they are equal.
  let difference: @Sendable (UnsafeRawPointer, UnsafeRawPointer, Int) throws -> StatePatch?
  /// Applies a patch to the field at the pointer.
  let apply: @Sendable (StatePatch, UnsafeMutableRawPointer) throws -> Void
  /// Takes, on the field at the pointer, at a depth, the path a change of it takes
  /// (`StatePatch.rehearseChange(of:depth:)`); a nil optional has nothing to take it on.
  let rehearseChange: @Sendable (UnsafeRawPointer, Int) -> Void

  /// The coding of a field of `type`, whose value the capturing encoder saw as `captured`
  /// (nil: left out); nil when that is not how this coding would encode it.
  static func make(for type: Any.Type, captured: (any Encodable)?) -> StoredFieldCoding? {
    if let optional = type as? any OptionalField.Type {
      if let captured, Swift.type(of: captured) != optional.wrappedType { return nil }
      guard let wrapped = optional.wrappedType as? any (Codable & SendableMetatype).Type else { return nil }
      return optionalCoding(wrapped)
    }
    guard let captured, Swift.type(of: captured) == type,
      let codable = type as? any (Codable & SendableMetatype).Type
    else { return nil }
    return plainCoding(codable)
  }

  private static func plainCoding<Value: Codable & SendableMetatype>(_: Value.Type) -> StoredFieldCoding {
    let equal = Equality.of(Value.self)
    let primitive = PrimitiveCoding(Value.self)
    return StoredFieldCoding(
      difference: { old, new, depth in
        let old = old.assumingMemoryBound(to: Value.self)
        let new = new.assumingMemoryBound(to: Value.self)
        if equal?(old, new) == true { return nil }
        if let primitive { return .whole(primitive.encode(new.pointee)) }
        return try StatePatch.changes(from: old.pointee, to: new.pointee, depth: depth)
      },
      apply: { patch, field in
        let field = field.assumingMemoryBound(to: Value.self)
        if let primitive, case let .whole(bytes) = patch {
          field.pointee = try primitive.decode(bytes)
        } else {
          field.pointee = try StatePatch.apply(patch, to: field.pointee)
        }
      },
      rehearseChange: { field, depth in
        StatePatch.rehearseChange(of: field.assumingMemoryBound(to: Value.self).pointee, depth: depth)
      })
  }

  private static func optionalCoding<Wrapped: Codable & SendableMetatype>(_: Wrapped.Type) -> StoredFieldCoding {
    let equal = Equality.of(Wrapped.self)
    let primitive = PrimitiveCoding(Wrapped.self)
    let encode: @Sendable (Wrapped) throws -> [UInt8]
    let decode: @Sendable ([UInt8]) throws -> Wrapped
    if let primitive {
      (encode, decode) = (primitive.encode, primitive.decode)
    } else {
      encode = { try BinaryEncoder().encode($0) }
      decode = { try BinaryDecoder().decode(Wrapped.self, from: $0) }
    }
    return StoredFieldCoding(
      difference: { old, new, depth in
        switch (old.assumingMemoryBound(to: Wrapped?.self).pointee, new.assumingMemoryBound(to: Wrapped?.self).pointee) {
        case (nil, nil): return nil
        case (_?, nil): return .removed
        case let (nil, new?): return .whole(try encode(new))
        case let (old?, new?):
          let same = withUnsafePointer(to: old) { old in withUnsafePointer(to: new) { equal?(old, $0) } }
          if same == true { return nil }
          if primitive != nil { return .whole(try encode(new)) }
          return try StatePatch.changes(from: old, to: new, depth: depth)
        }
      },
      apply: { patch, field in
        let field = field.assumingMemoryBound(to: Wrapped?.self)
        switch patch {
        case .removed:
          field.pointee = nil
        case let .whole(bytes):
          field.pointee = try decode(bytes)
        case .fields, .splice:
          guard let old = field.pointee else {
            throw DistributionError.protocolViolation("a patch of changes arrived for a field that is nil")
          }
          field.pointee = try StatePatch.apply(patch, to: old)
        }
      },
      rehearseChange: { field, depth in
        guard let value = field.assumingMemoryBound(to: Wrapped?.self).pointee else { return }
        StatePatch.rehearseChange(of: value, depth: depth)
      })
  }
}

/// An optional's wrapped type, asked of an optional type the code does not name.
protocol OptionalField {
  static var wrappedType: Any.Type { get }
}

extension Optional: OptionalField {
  static var wrappedType: Any.Type { Wrapped.self }
}
