import Foundation

/// Encodes `Codable` values into a compact binary form.
///
/// Integers are variable-length (zigzag for signed), floats are their bit patterns, strings
/// and data are length-prefixed. A keyed container is a count of entries, each a key and a
/// length-prefixed value; an unkeyed container is a count of length-prefixed values. Every
/// value is therefore delimited, so a decoder can skip what it does not read, and an empty
/// value stands for nil.
///
/// ```swift
/// let bytes = try BinaryEncoder().encode(Counter.State(count: 3))
/// let state = try BinaryDecoder().decode(Counter.State.self, from: bytes)
/// ```
package struct BinaryEncoder: Sendable {
  package init() {}

  package func encode(_ value: some Encodable) throws -> [UInt8] {
    let node = try Node.encode(value, codingPath: [])
    var bytes: [UInt8] = []
    bytes.reserveCapacity(64)
    node.write(to: &bytes)
    return bytes
  }

  /// Whether values of `Value` are laid out by the codec itself, with no containers: a leaf
  /// that a patch can only replace whole.
  package static func isPrimitive<Value>(_: Value.Type) -> Bool {
    Value.self is any BinaryPrimitive.Type
  }
}

/// An encoded value before it is laid out as bytes.
final class Node {
  enum Content {
    case empty
    case bytes([UInt8])
    case keyed([(key: String, value: Node)])
    case unkeyed([Node])
  }

  var content: Content = .empty

  static func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws -> Node {
    let node = Node()
    if let primitive = value as? any BinaryPrimitive {
      var bytes: [UInt8] = []
      primitive.write(to: &bytes)
      node.content = .bytes(bytes)
    } else if let elements = value as? any PrimitiveElements {
      node.content = .bytes(elements.unkeyedEncoding())
    } else {
      try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
    }
    return node
  }

  func write(to output: inout [UInt8]) {
    switch content {
    case .empty:
      break
    case let .bytes(bytes):
      output.append(contentsOf: bytes)
    case let .keyed(entries):
      VarInt.write(UInt64(entries.count), to: &output)
      for (key, value) in entries {
        key.write(to: &output)
        value.writeDelimited(to: &output)
      }
    case let .unkeyed(elements):
      VarInt.write(UInt64(elements.count), to: &output)
      for element in elements { element.writeDelimited(to: &output) }
    }
  }

  /// How many bytes `write` produces; measured once, so that a value's length can be written
  /// before the value without a temporary buffer.
  private var size: Int {
    if let cachedSize { return cachedSize }
    let size: Int
    switch content {
    case .empty:
      size = 0
    case let .bytes(bytes):
      size = bytes.count
    case let .keyed(entries):
      size = entries.reduce(Self.varIntSize(entries.count)) { total, entry in
        let keyLength = entry.key.utf8.count
        return total + Self.varIntSize(keyLength) + keyLength + entry.value.delimitedSize
      }
    case let .unkeyed(elements):
      size = elements.reduce(Self.varIntSize(elements.count)) { $0 + $1.delimitedSize }
    }
    cachedSize = size
    return size
  }

  private var cachedSize: Int?

  private var delimitedSize: Int { Self.varIntSize(size) + size }

  private func writeDelimited(to output: inout [UInt8]) {
    VarInt.write(UInt64(size), to: &output)
    write(to: &output)
  }

  private static func varIntSize(_ value: Int) -> Int {
    var value = UInt64(value)
    var size = 1
    while value >= 0x80 {
      value >>= 7
      size += 1
    }
    return size
  }
}

/// An array of primitives, laid out as an unkeyed container of them in one buffer: the bytes
/// `Array.encode(to:)` makes, without a node and a buffer per element. A large array encoded
/// element by element leaves the allocator with hundreds of thousands of freed blocks, which
/// made the next actions of the process several times slower.
private protocol PrimitiveElements {
  func unkeyedEncoding() -> [UInt8]
}

extension Array: PrimitiveElements where Element: BinaryPrimitive {
  fileprivate func unkeyedEncoding() -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count * 2 + 8)
    VarInt.write(UInt64(count), to: &bytes)
    var element: [UInt8] = []
    for value in self {
      element.removeAll(keepingCapacity: true)
      value.write(to: &element)
      VarInt.write(UInt64(element.count), to: &bytes)
      bytes.append(contentsOf: element)
    }
    return bytes
  }
}

private struct NodeEncoder: Encoder {
  let node: Node
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    if case .keyed = node.content {} else { node.content = .keyed([]) }
    return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    if case .unkeyed = node.content {} else { node.content = .unkeyed([]) }
    return UnkeyedNodeContainer(node: node, codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleValueNodeContainer(node: node, codingPath: codingPath)
  }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let node: Node
  let codingPath: [any CodingKey]

  private func append(_ key: Key, _ child: Node) {
    guard case var .keyed(entries) = node.content else { return }
    node.content = .empty
    entries.append((key.stringValue, child))
    node.content = .keyed(entries)
  }

  mutating func encodeNil(forKey key: Key) throws { append(key, Node()) }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    append(key, try Node.encode(value, codingPath: codingPath + [key]))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let child = Node()
    append(key, child)
    return NodeEncoder(node: child, codingPath: codingPath + [key]).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let child = Node()
    append(key, child)
    return NodeEncoder(node: child, codingPath: codingPath + [key]).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    superEncoder(forKey: Key(stringValue: "super")!)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    let child = Node()
    append(key, child)
    return NodeEncoder(node: child, codingPath: codingPath + [key])
  }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
  let node: Node
  let codingPath: [any CodingKey]

  var count: Int {
    if case let .unkeyed(elements) = node.content { elements.count } else { 0 }
  }

  private func append(_ child: Node) {
    guard case var .unkeyed(elements) = node.content else { return }
    node.content = .empty
    elements.append(child)
    node.content = .unkeyed(elements)
  }

  mutating func encodeNil() throws { append(Node()) }

  mutating func encode<T: Encodable>(_ value: T) throws {
    append(try Node.encode(value, codingPath: codingPath))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    let child = Node()
    append(child)
    return NodeEncoder(node: child, codingPath: codingPath).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let child = Node()
    append(child)
    return NodeEncoder(node: child, codingPath: codingPath).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    let child = Node()
    append(child)
    return NodeEncoder(node: child, codingPath: codingPath)
  }
}

private struct SingleValueNodeContainer: SingleValueEncodingContainer {
  let node: Node
  let codingPath: [any CodingKey]

  mutating func encodeNil() throws { node.content = .empty }

  mutating func encode<T: Encodable>(_ value: T) throws {
    node.content = try Node.encode(value, codingPath: codingPath).content
  }
}
