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
public struct BinaryEncoder: Sendable {
  public init() {}

  public func encode(_ value: some Encodable) throws -> [UInt8] {
    let node = try Node.encode(value, codingPath: [])
    var bytes: [UInt8] = []
    bytes.reserveCapacity(64)
    node.write(to: &bytes)
    return bytes
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
    if let bytes = BinaryPrimitives.bytes(of: value) {
      node.content = .bytes(bytes)
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
        BinaryPrimitives.write(key, to: &output)
        value.writeDelimited(to: &output)
      }
    case let .unkeyed(elements):
      VarInt.write(UInt64(elements.count), to: &output)
      for element in elements { element.writeDelimited(to: &output) }
    }
  }

  private func writeDelimited(to output: inout [UInt8]) {
    var body: [UInt8] = []
    write(to: &body)
    VarInt.write(UInt64(body.count), to: &output)
    output.append(contentsOf: body)
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
