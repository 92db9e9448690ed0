import Foundation

/// Decodes values that `BinaryEncoder` encoded. Safe on untrusted bytes: every read is
/// bounds-checked, counts are limited by the bytes that remain, nesting is limited, and
/// failures are `DecodingError`s that say where.
///
/// ```swift
/// let state = try BinaryDecoder().decode(Counter.State.self, from: bytes)
/// ```
package struct BinaryDecoder: Sendable {
  /// How deeply containers may nest before the input is refused.
  package var maximumDepth: Int

  package init(maximumDepth: Int = 256) {
    self.maximumDepth = maximumDepth
  }

  package func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
    let input = Input(bytes: bytes, maximumDepth: maximumDepth)
    return try input.decode(T.self, in: 0..<bytes.count, codingPath: [], depth: 0)
  }
}

/// The bytes being decoded, and the rules for reading them.
private final class Input {
  let bytes: [UInt8]
  let maximumDepth: Int

  init(bytes: [UInt8], maximumDepth: Int) {
    self.bytes = bytes
    self.maximumDepth = maximumDepth
  }

  func corrupted(_ message: String, _ codingPath: [any CodingKey]) -> DecodingError {
    .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: message))
  }

  func varint(at position: inout Int, end: Int, _ codingPath: [any CodingKey]) throws -> UInt64 {
    do throws(PrimitiveMalformation) { return try VarInt.read(bytes, at: &position, end: end) } catch { throw corrupted(error.message, codingPath) }
  }

  /// Reads a length, then that many bytes, within `end`.
  func delimited(at position: inout Int, end: Int, _ codingPath: [any CodingKey]) throws -> Range<Int> {
    do throws(PrimitiveMalformation) { return try VarInt.delimited(bytes, at: &position, end: end) } catch { throw corrupted(error.message, codingPath) }
  }

  /// Reads an element count, refusing counts that the remaining bytes cannot hold.
  func count(at position: inout Int, end: Int, _ codingPath: [any CodingKey]) throws -> Int {
    let count = try varint(at: &position, end: end, codingPath)
    guard count <= UInt64(end - position) else {
      throw corrupted("A container claims \(count) entries in \(end - position) bytes.", codingPath)
    }
    return Int(count)
  }

  func decode<T: Decodable>(
    _ type: T.Type, in range: Range<Int>, codingPath: [any CodingKey], depth: Int
  ) throws -> T {
    if let value = try primitive(T.self, in: range, codingPath) { return value }
    guard depth < maximumDepth else {
      throw corrupted("Containers nest deeper than \(maximumDepth) levels.", codingPath)
    }
    return try T(from: ValueDecoder(input: self, range: range, codingPath: codingPath, depth: depth + 1))
  }

  /// A value the codec lays out itself, or nil when `T` is not one. The types are tested one
  /// by one (a metatype comparison each), not looked up as conformances: this runs for every
  /// value decoded, every element of a long list among them.
  private func primitive<T>(_ type: T.Type, in range: Range<Int>, _ codingPath: [any CodingKey]) throws -> T? {
    let value: Any
    do throws(PrimitiveMalformation) {
      switch type {
      case is Bool.Type: value = try Bool.read(bytes, in: range)
      case is String.Type: value = try String.read(bytes, in: range)
      case is Int.Type: value = try Int.read(bytes, in: range)
      case is Int8.Type: value = try Int8.read(bytes, in: range)
      case is Int16.Type: value = try Int16.read(bytes, in: range)
      case is Int32.Type: value = try Int32.read(bytes, in: range)
      case is Int64.Type: value = try Int64.read(bytes, in: range)
      case is UInt.Type: value = try UInt.read(bytes, in: range)
      case is UInt8.Type: value = try UInt8.read(bytes, in: range)
      case is UInt16.Type: value = try UInt16.read(bytes, in: range)
      case is UInt32.Type: value = try UInt32.read(bytes, in: range)
      case is UInt64.Type: value = try UInt64.read(bytes, in: range)
      case is Float.Type: value = try Float.read(bytes, in: range)
      case is Double.Type: value = try Double.read(bytes, in: range)
      case is Data.Type: value = try Data.read(bytes, in: range)
      case is [UInt8].Type: value = try [UInt8].read(bytes, in: range)
      default: return nil
      }
    } catch {
      throw corrupted(error.message, codingPath)
    }
    return (value as! T)
  }
}

private struct ValueDecoder: Decoder {
  let input: Input
  let range: Range<Int>
  let codingPath: [any CodingKey]
  let depth: Int
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    var position = range.lowerBound
    let count = try input.count(at: &position, end: range.upperBound, codingPath)
    var entries: [(key: String, range: Range<Int>)] = []
    entries.reserveCapacity(count)
    for _ in 0..<count {
      let keyRange = try input.delimited(at: &position, end: range.upperBound, codingPath)
      guard let key = String(validating: input.bytes[keyRange], as: UTF8.self) else {
        throw input.corrupted("A key is not valid UTF-8.", codingPath)
      }
      entries.append((key, try input.delimited(at: &position, end: range.upperBound, codingPath)))
    }
    guard position == range.upperBound else { throw input.corrupted("Bytes follow a keyed container.", codingPath) }
    return KeyedDecodingContainer(KeyedValueContainer<Key>(decoder: self, entries: entries))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    var position = range.lowerBound
    let count = try input.count(at: &position, end: range.upperBound, codingPath)
    return UnkeyedValueContainer(decoder: self, count: count, position: position)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    SingleValueContainer(decoder: self)
  }

  func child(_ range: Range<Int>, key: (any CodingKey)?) -> ValueDecoder {
    ValueDecoder(input: input, range: range, codingPath: codingPath + (key.map { [$0] } ?? []), depth: depth + 1)
  }

  func decode<T: Decodable>(_ type: T.Type, in range: Range<Int>, key: (any CodingKey)?) throws -> T {
    try input.decode(T.self, in: range, codingPath: codingPath + (key.map { [$0] } ?? []), depth: depth)
  }
}

private struct KeyedValueContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: ValueDecoder
  let entries: [(key: String, range: Range<Int>)]
  var codingPath: [any CodingKey] { decoder.codingPath }
  var allKeys: [Key] { entries.compactMap { Key(stringValue: $0.key) } }

  func contains(_ key: Key) -> Bool { entries.contains { $0.key == key.stringValue } }

  private func range(for key: Key) throws -> Range<Int> {
    guard let entry = entries.first(where: { $0.key == key.stringValue }) else {
      throw DecodingError.keyNotFound(
        key, DecodingError.Context(codingPath: codingPath, debugDescription: "No value for \"\(key.stringValue)\"."))
    }
    return entry.range
  }

  func decodeNil(forKey key: Key) throws -> Bool { try range(for: key).isEmpty }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try decoder.decode(T.self, in: try range(for: key), key: key)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try decoder.child(try range(for: key), key: key).container(keyedBy: type)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try decoder.child(try range(for: key), key: key).unkeyedContainer()
  }

  func superDecoder() throws -> any Decoder {
    try superDecoder(forKey: Key(stringValue: "super")!)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    decoder.child(try range(for: key), key: key)
  }
}

private struct UnkeyedValueContainer: UnkeyedDecodingContainer {
  let decoder: ValueDecoder
  let count: Int?
  var position: Int
  var currentIndex = 0
  var codingPath: [any CodingKey] { decoder.codingPath }
  var isAtEnd: Bool { currentIndex >= count ?? 0 }

  init(decoder: ValueDecoder, count: Int, position: Int) {
    self.decoder = decoder
    self.count = count
    self.position = position
  }

  private mutating func next() throws -> Range<Int> {
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(
        Any.self, DecodingError.Context(codingPath: codingPath, debugDescription: "The list has no more elements."))
    }
    currentIndex += 1
    return try decoder.input.delimited(at: &position, end: decoder.range.upperBound, codingPath)
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd else { return false }
    var lookahead = self
    guard try lookahead.next().isEmpty else { return false }
    self = lookahead
    return true
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try decoder.decode(T.self, in: try next(), key: nil)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try decoder.child(try next(), key: nil).container(keyedBy: type)
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try decoder.child(try next(), key: nil).unkeyedContainer()
  }

  mutating func superDecoder() throws -> any Decoder {
    decoder.child(try next(), key: nil)
  }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
  let decoder: ValueDecoder
  var codingPath: [any CodingKey] { decoder.codingPath }

  func decodeNil() -> Bool { decoder.range.isEmpty }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try decoder.decode(T.self, in: decoder.range, key: nil)
  }
}
