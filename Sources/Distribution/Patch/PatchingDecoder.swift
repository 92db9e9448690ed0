internal import Transport

/// Rebuilds a struct from an old value of it and the patches of the fields that changed:
/// changed fields are patched (decoded, or rebuilt from their old value and their own patch),
/// the others are taken from the old value as they are.
struct PatchingDecoder: Decoder {
  /// The old value's fields, as `FieldCapture` found them.
  let old: [String: any Encodable]
  let fields: [String: StatePatch]
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(PatchingContainer<Key>(fields: fields, old: old))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw DistributionError.protocolViolation("a field patch cannot rebuild an unkeyed value")
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw DistributionError.protocolViolation("a field patch cannot rebuild a single value")
  }
}

private struct PatchingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let fields: [String: StatePatch]
  let old: [String: any Encodable]
  var codingPath: [any CodingKey] { [] }
  var allKeys: [Key] { Set(fields.keys).union(old.keys).compactMap { Key(stringValue: $0) } }

  /// A removed field is still there, as nil: synthesized decoding asks `decodeNil` for it.
  func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil || old[key.stringValue] != nil }

  func decodeNil(forKey key: Key) throws -> Bool {
    if let patch = fields[key.stringValue] { return patch == .removed }
    guard let value = old[key.stringValue] else { throw missing(key) }
    return value is FieldCapture.Nil || (value as? any NilTestable)?.isNil == true
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    let oldValue = old[key.stringValue]
    if let patch = fields[key.stringValue] {
      if case let .whole(bytes) = patch { return try BinaryDecoder().decode(T.self, from: bytes) }
      guard let oldValue, !(oldValue is FieldCapture.Nil) else { throw missing(key) }
      return try StatePatch.apply(patch, to: oldValue, as: T.self)
    }
    guard let value = oldValue as? T else { throw missing(key) }
    return value
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    throw unsupported(key)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw unsupported(key)
  }

  func superDecoder() throws -> any Decoder {
    throw DistributionError.protocolViolation("a field patch cannot rebuild a superclass")
  }

  func superDecoder(forKey key: Key) throws -> any Decoder { throw unsupported(key) }

  private func missing(_ key: Key) -> DistributionError {
    .protocolViolation("the field \"\(key.stringValue)\" is neither patched nor in the old value")
  }

  private func unsupported(_ key: Key) -> DistributionError {
    .protocolViolation("a field patch cannot rebuild \"\(key.stringValue)\" from nested containers")
  }
}

/// An optional, asked whether it holds nothing without knowing its wrapped type.
private protocol NilTestable {
  var isNil: Bool { get }
}

extension Optional: NilTestable {
  var isNil: Bool { self == nil }
}
