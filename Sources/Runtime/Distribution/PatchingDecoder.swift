internal import Transport

/// Rebuilds a struct from an old value of it and the encodings of the fields that changed:
/// changed fields are decoded, the others are taken from the old value as they are.
struct PatchingDecoder: Decoder {
  /// The old value's fields, as `FieldCapture` found them.
  let old: [String: any Encodable]
  let fields: [String: [UInt8]]
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
  let fields: [String: [UInt8]]
  let old: [String: any Encodable]
  var codingPath: [any CodingKey] { [] }
  var allKeys: [Key] { Set(fields.keys).union(old.keys).compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil || old[key.stringValue] != nil }

  func decodeNil(forKey key: Key) throws -> Bool {
    if let bytes = fields[key.stringValue] { return bytes.isEmpty }
    guard let value = old[key.stringValue] else { throw missing(key) }
    return value is FieldCapture.Nil || (value as? any NilTestable)?.isNil == true
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    if let bytes = fields[key.stringValue] { return try BinaryDecoder().decode(T.self, from: bytes) }
    guard let value = old[key.stringValue] as? T else { throw missing(key) }
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
