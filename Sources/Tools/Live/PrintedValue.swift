/// A value as Swift prints it (`counter1(Examples.Counter.Action.incrementButtonTapped)`,
/// `rows(.element(id: 3, action: .edit("milk")))`) or as JSON, read into the shape Swift's
/// synthesized `Codable` gives it, so that the value's own `Decodable` can rebuild it.
///
/// Each node keeps the column it was read at, so a decoding error can point at it.
///
/// ```swift
/// let value = try PrintedValue.read("counter1(.incrementButtonTapped)")
/// value.json  // {"counter1":{"_0":{"incrementButtonTapped":{}}}}
/// ```
struct PrintedValue: Equatable {
  /// What the node holds, in JSON's terms.
  enum Shape: Equatable {
    /// An object's members in the order they were written.
    case object([Member])
    case array([PrintedValue])
    case string(String)
    /// A number as written (JSON's syntax).
    case number(String)
    case bool(Bool)
    case null
  }

  /// One member of an object.
  struct Member: Equatable {
    let key: String
    let value: PrintedValue
  }

  let shape: Shape
  /// The column (from 1) a caret should point at for this node: an enum case's name, or the
  /// first character of any other value.
  let column: Int

  /// The member `key` of an object node; nil for other nodes.
  func member(_ key: String) -> PrintedValue? {
    guard case let .object(members) = shape else { return nil }
    return members.last { $0.key == key }?.value
  }

  /// The node with the node at `path` (object keys and array indices) replaced by
  /// `replacement`; the node itself when `path` leads nowhere.
  func replacing(at path: some Collection<any CodingKey>, with replacement: PrintedValue) -> PrintedValue {
    guard let key = path.first else { return replacement }
    let rest = path.dropFirst()
    switch shape {
    case let .object(members):
      guard let index = members.lastIndex(where: { $0.key == key.stringValue }) else { return self }
      var changed = members
      changed[index] = Member(key: key.stringValue, value: members[index].value.replacing(at: rest, with: replacement))
      return PrintedValue(shape: .object(changed), column: column)
    case let .array(elements):
      guard let index = key.intValue, elements.indices.contains(index) else { return self }
      var changed = elements
      changed[index] = elements[index].replacing(at: rest, with: replacement)
      return PrintedValue(shape: .array(changed), column: column)
    default:
      return self
    }
  }

  /// The name of a case without a payload, `{"name":{}}`; nil for other nodes.
  var bareCaseName: String? {
    guard case let .object(members) = shape, members.count == 1, members[0].value.shape == .object([]) else {
      return nil
    }
    return members[0].key
  }

  /// The element `index` of an array node; nil for other nodes.
  func element(_ index: Int) -> PrintedValue? {
    guard case let .array(elements) = shape, elements.indices.contains(index) else { return nil }
    return elements[index]
  }
}
