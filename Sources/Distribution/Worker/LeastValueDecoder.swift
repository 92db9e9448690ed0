import Bulkhead

/// A decoder that answers every question with the least value: 0, `false`, `""`, nil for every
/// optional, no elements, an enum's first case (those with a payload first, as the runtime
/// lists them). A worker template decodes each boundary's child state and action with it to
/// have values to rehearse a first run on (`Rehearsal`): a type that cannot be made so (a
/// custom `init(from:)` that refuses such values, one nested more than 32 deep) throws, and is
/// rehearsed without a value.
///
/// ```swift
/// let sample = LeastValueDecoder.sample(of: Detail.State.self)  // Detail.State(description: "")
/// ```
struct LeastValueDecoder: Decoder {
  var codingPath: [any CodingKey] = []
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  /// The case names of the type being decoded, when it is an enum.
  private var cases: [String] = []
  /// Where the keys of the outermost keyed container are noted as `init(from:)` asks for them.
  private var keysRead: KeysRead?

  /// The names of the keys an `init(from:)` asks for, in a box its containers share.
  private final class KeysRead {
    var names: Set<String> = []
  }

  /// How deep values nest before the decoder gives up: a recursive enum would never end.
  private static let maximumDepth = 32

  private init(decoding type: Any.Type, at codingPath: [any CodingKey]) throws {
    guard codingPath.count <= Self.maximumDepth else {
      throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "nested too deep"))
    }
    self.codingPath = codingPath
    cases = EnumCaseNames.of(type) ?? []
  }

  /// A decoder at `codingPath` of no type in particular (a super decoder).
  private init(at codingPath: [any CodingKey]) { self.codingPath = codingPath }

  /// A value of `type` made of least values; nil when it cannot be made so.
  static func sample<Value>(of type: Value.Type) -> Value? {
    guard let decodable = type as? any Decodable.Type else { return nil }
    return (try? decodable.init(from: LeastValueDecoder(decoding: type, at: []))) as? Value
  }

  /// The names of the keys `type`'s `init(from:)` asks its outermost keyed container for, while
  /// it decodes a value of least values: every key it reads, optional or not, whatever a
  /// value holds; nil when such a value cannot be made.
  static func keysRead(decoding type: Any.Type) -> Set<String>? {
    guard let decodable = type as? any Decodable.Type, var decoder = try? LeastValueDecoder(decoding: type, at: [])
    else { return nil }
    let keysRead = KeysRead()
    decoder.keysRead = keysRead
    guard (try? decodable.init(from: decoder)) != nil else { return nil }
    return keysRead.names
  }

  /// A decoder of a `T` at `codingPath`.
  private static func decode<T: Decodable>(_: T.Type, at codingPath: [any CodingKey]) throws -> T {
    try T(from: LeastValueDecoder(decoding: T.self, at: codingPath))
  }

  func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(Keyed<Key>(codingPath: codingPath, cases: cases, keysRead: keysRead))
  }

  func unkeyedContainer() -> any UnkeyedDecodingContainer { Unkeyed(codingPath: codingPath) }

  func singleValueContainer() -> any SingleValueDecodingContainer { self }

  /// Every key is there, and holds nil or the least value; the keys listed are an enum's first
  /// case, none for a struct.
  private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    var codingPath: [any CodingKey]
    var cases: [String] = []
    var keysRead: KeysRead? = nil
    var allKeys: [Key] { cases.lazy.compactMap(Key.init(stringValue:)).prefix(1).map { $0 } }

    func contains(_ key: Key) -> Bool {
      keysRead?.names.insert(key.stringValue)
      return true
    }
    func decodeNil(forKey key: Key) -> Bool { contains(key) }
    func decode<T: Decodable>(_: T.Type, forKey key: Key) throws -> T {
      _ = contains(key)
      return try LeastValueDecoder.decode(T.self, at: codingPath + [key])
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy _: NestedKey.Type, forKey key: Key) -> KeyedDecodingContainer<NestedKey> {
      _ = contains(key)
      return KeyedDecodingContainer(Keyed<NestedKey>(codingPath: codingPath + [key]))
    }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedDecodingContainer {
      _ = contains(key)
      return Unkeyed(codingPath: codingPath + [key])
    }
    func superDecoder() -> any Decoder { LeastValueDecoder(at: codingPath) }
    func superDecoder(forKey key: Key) -> any Decoder { LeastValueDecoder(at: codingPath + [key]) }
  }

  /// No elements.
  private struct Unkeyed: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey]
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }

    mutating func decodeNil() -> Bool { true }
    mutating func decode<T: Decodable>(_: T.Type) throws -> T {
      throw DecodingError.valueNotFound(T.self, .init(codingPath: codingPath, debugDescription: "no elements"))
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy _: NestedKey.Type) -> KeyedDecodingContainer<NestedKey> {
      KeyedDecodingContainer(Keyed<NestedKey>(codingPath: codingPath))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedDecodingContainer { self }
    mutating func superDecoder() -> any Decoder { LeastValueDecoder(at: codingPath) }
  }
}

extension LeastValueDecoder: SingleValueDecodingContainer {
  func decodeNil() -> Bool { true }
  func decode(_: Bool.Type) -> Bool { false }
  func decode(_: String.Type) -> String { "" }
  func decode(_: Double.Type) -> Double { 0 }
  func decode(_: Float.Type) -> Float { 0 }
  func decode(_: Int.Type) -> Int { 0 }
  func decode(_: Int8.Type) -> Int8 { 0 }
  func decode(_: Int16.Type) -> Int16 { 0 }
  func decode(_: Int32.Type) -> Int32 { 0 }
  func decode(_: Int64.Type) -> Int64 { 0 }
  func decode(_: UInt.Type) -> UInt { 0 }
  func decode(_: UInt8.Type) -> UInt8 { 0 }
  func decode(_: UInt16.Type) -> UInt16 { 0 }
  func decode(_: UInt32.Type) -> UInt32 { 0 }
  func decode(_: UInt64.Type) -> UInt64 { 0 }
  func decode<T: Decodable>(_: T.Type) throws -> T { try Self.decode(T.self, at: codingPath) }
}
