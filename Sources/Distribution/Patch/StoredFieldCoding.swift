internal import Transport

/// How a patch compares, and changes in place, one stored field of a type known when the
/// layout was found: the field's type opened once, so that each action works on typed
/// pointers, not on existentials.
///
/// An optional field patches as synthesized `Codable` encodes it: left out when nil, so nil
/// after a value is `.removed`, and a value after nil goes whole.
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
    return StoredFieldCoding(
      difference: { old, new, depth in
        let old = old.assumingMemoryBound(to: Value.self)
        let new = new.assumingMemoryBound(to: Value.self)
        if equal?(old, new) == true { return nil }
        return try StatePatch.changes(from: old.pointee, to: new.pointee, depth: depth)
      },
      apply: { patch, field in
        let field = field.assumingMemoryBound(to: Value.self)
        field.pointee = try StatePatch.apply(patch, to: field.pointee)
      },
      rehearseChange: { field, depth in
        StatePatch.rehearseChange(of: field.assumingMemoryBound(to: Value.self).pointee, depth: depth)
      })
  }

  private static func optionalCoding<Wrapped: Codable & SendableMetatype>(_: Wrapped.Type) -> StoredFieldCoding {
    let equal = Equality.of(Wrapped.self)
    return StoredFieldCoding(
      difference: { old, new, depth in
        switch (old.assumingMemoryBound(to: Wrapped?.self).pointee, new.assumingMemoryBound(to: Wrapped?.self).pointee) {
        case (nil, nil): return nil
        case (_?, nil): return .removed
        case let (nil, new?): return .whole(try BinaryEncoder().encode(new))
        case let (old?, new?):
          let same = withUnsafePointer(to: old) { old in withUnsafePointer(to: new) { equal?(old, $0) } }
          if same == true { return nil }
          return try StatePatch.changes(from: old, to: new, depth: depth)
        }
      },
      apply: { patch, field in
        let field = field.assumingMemoryBound(to: Wrapped?.self)
        switch patch {
        case .removed:
          field.pointee = nil
        case let .whole(bytes):
          field.pointee = try BinaryDecoder().decode(Wrapped.self, from: bytes)
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
