/// The top-level fields of a value as its `encode(to:)` hands them to a keyed container: each
/// coding key with the field's value, not yet encoded. A patch compares these to find what
/// changed, and encodes only that.
///
/// Values that do not encode as one flat keyed container (enums with payloads in nested
/// containers, arrays, single values) have no fields: `capture` returns nil for them.
enum FieldCapture {
  /// A field that the value encoded explicitly as nil.
  struct Nil: Encodable, Equatable {}

  static func capture(_ value: some Encodable) -> [String: any Encodable]? {
    let encoder = CapturingEncoder()
    do {
      try value.encode(to: encoder)
    } catch {
      return nil
    }
    return encoder.isFlat ? encoder.fields : nil
  }
}

private final class CapturingEncoder: Encoder {
  var fields: [String: any Encodable] = [:]
  var isFlat = true
  private var keyedContainers = 0
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    keyedContainers += 1
    if keyedContainers > 1 { isFlat = false }
    return KeyedEncodingContainer(CapturingContainer(encoder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    isFlat = false
    return DiscardingUnkeyedContainer()
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    isFlat = false
    return DiscardingUnkeyedContainer()
  }
}

private struct CapturingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: CapturingEncoder
  var codingPath: [any CodingKey] { [] }

  mutating func encodeNil(forKey key: Key) throws {
    encoder.fields[key.stringValue] = FieldCapture.Nil()
  }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    encoder.fields[key.stringValue] = value
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    encoder.isFlat = false
    return KeyedEncodingContainer(CapturingContainer<NestedKey>(encoder: encoder))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    encoder.isFlat = false
    return DiscardingUnkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    encoder.isFlat = false
    return encoder
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder() }
}

/// Where a value that has no flat fields writes the rest of its encoding: nowhere.
private struct DiscardingUnkeyedContainer: UnkeyedEncodingContainer, SingleValueEncodingContainer {
  var codingPath: [any CodingKey] { [] }
  var count: Int { 0 }

  mutating func encodeNil() throws {}
  mutating func encode<T: Encodable>(_ value: T) throws {}

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(CapturingContainer<NestedKey>(encoder: CapturingEncoder()))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }

  mutating func superEncoder() -> any Encoder { CapturingEncoder() }
}
