/// An array of identifiable elements that also finds an element by its id in constant time.
///
/// ```swift
/// var rows: IdentifiedArrayOf<Row.State> = [Row.State(id: 1), Row.State(id: 2)]
/// rows[id: 2]?.title = "Second"
/// rows.remove(id: 1)
/// ```
public struct IdentifiedArray<ID: Hashable, Element> {
  public private(set) var elements: [Element]
  /// The ids of the elements, in order. Kept alongside the elements so that reading them is a
  /// copy-on-write copy, and comparing two unchanged copies is immediate.
  public private(set) var ids: [ID]
  private var indices: [ID: Int]
  private let id: KeyPath<Element, ID> & Sendable

  /// An array of `elements`, keeping the first of any that share an id.
  public init(_ elements: some Sequence<Element>, id: KeyPath<Element, ID> & Sendable) {
    self.elements = []
    self.ids = []
    self.indices = [:]
    self.id = id
    for element in elements { append(element) }
  }

  /// The element with `id`, or nil; setting nil removes it, setting a value replaces it or
  /// appends it.
  public subscript(id elementID: ID) -> Element? {
    get { indices[elementID].map { elements[$0] } }
    set {
      guard let newValue else {
        remove(id: elementID)
        return
      }
      if let index = indices[elementID] {
        elements[index] = newValue
      } else {
        append(newValue)
      }
    }
  }

  /// Changes the element with `elementID` in place; returns false when there is none.
  @discardableResult
  public mutating func modify(id elementID: ID, _ body: (inout Element) -> Void) -> Bool {
    guard let index = indices[elementID] else { return false }
    body(&elements[index])
    return true
  }

  /// Appends `element` unless an element with its id is already there.
  @discardableResult
  public mutating func append(_ element: Element) -> (inserted: Bool, index: Int) {
    let elementID = element[keyPath: id]
    if let index = indices[elementID] { return (false, index) }
    elements.append(element)
    ids.append(elementID)
    indices[elementID] = elements.count - 1
    return (true, elements.count - 1)
  }

  /// Inserts `element` at `index` unless an element with its id is already there.
  public mutating func insert(_ element: Element, at index: Int) {
    let elementID = element[keyPath: id]
    guard indices[elementID] == nil else { return }
    elements.insert(element, at: index)
    ids.insert(elementID, at: index)
    reindex(from: index)
  }

  /// Removes and returns the element with `elementID`, if any.
  @discardableResult
  public mutating func remove(id elementID: ID) -> Element? {
    guard let index = indices.removeValue(forKey: elementID) else { return nil }
    let element = elements.remove(at: index)
    ids.remove(at: index)
    reindex(from: index)
    return element
  }

  /// Removes and returns the element at `index`.
  @discardableResult
  public mutating func remove(at index: Int) -> Element {
    let element = elements.remove(at: index)
    indices.removeValue(forKey: ids.remove(at: index))
    reindex(from: index)
    return element
  }

  /// Removes the elements that satisfy `shouldBeRemoved`.
  public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
    try elements.removeAll(where: shouldBeRemoved)
    ids = elements.map { $0[keyPath: id] }
    indices = [:]
    reindex(from: 0)
  }

  /// Replaces the elements in `range` with `newElements`, leaving out any whose id is already
  /// in the array, as `insert` does.
  package mutating func replaceSubrange(_ range: Range<Int>, with newElements: some Collection<Element>) {
    // The same ids in the same places, as when elements changed: no id moves.
    if newElements.count == range.count, zip(ids[range], newElements).allSatisfy({ $0 == $1[keyPath: id] }) {
      elements.replaceSubrange(range, with: newElements)
      return
    }
    for removed in ids[range] { indices[removed] = nil }
    elements.removeSubrange(range)
    ids.removeSubrange(range)
    var position = range.lowerBound
    var added: [Element] = []
    var addedIDs: [ID] = []
    for element in newElements {
      let elementID = element[keyPath: id]
      guard indices[elementID] == nil else { continue }
      indices[elementID] = position
      position += 1
      added.append(element)
      addedIDs.append(elementID)
    }
    elements.insert(contentsOf: added, at: range.lowerBound)
    ids.insert(contentsOf: addedIDs, at: range.lowerBound)
    reindex(from: range.lowerBound)
  }

  private mutating func reindex(from start: Int) {
    for index in ids.indices[start...] { indices[ids[index]] = index }
  }
}

extension IdentifiedArray where Element: Identifiable, ID == Element.ID {
  /// An array of `elements` identified by their `id`.
  public init(_ elements: some Sequence<Element>) {
    self.init(elements, id: \Element.id)
  }

  /// An empty array.
  public init() {
    self.init([], id: \Element.id)
  }
}

/// An identified array of identifiable elements.
public typealias IdentifiedArrayOf<Element: Identifiable> = IdentifiedArray<Element.ID, Element>

extension IdentifiedArray: RandomAccessCollection, MutableCollection {
  public var startIndex: Int { elements.startIndex }
  public var endIndex: Int { elements.endIndex }

  public subscript(position: Int) -> Element {
    get { elements[position] }
    set {
      precondition(
        newValue[keyPath: id] == ids[position],
        "An element's id cannot change through its position in an IdentifiedArray.")
      elements[position] = newValue
    }
  }
}

extension IdentifiedArray: ExpressibleByArrayLiteral where Element: Identifiable, ID == Element.ID {
  public init(arrayLiteral elements: Element...) { self.init(elements) }
}

extension IdentifiedArray: Equatable where Element: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.elements == rhs.elements }
}

extension IdentifiedArray: Hashable where Element: Hashable {
  public func hash(into hasher: inout Hasher) { hasher.combine(elements) }
}

extension IdentifiedArray: Sendable where ID: Sendable, Element: Sendable {}

extension IdentifiedArray: CustomStringConvertible {
  public var description: String { elements.description }
}

extension IdentifiedArray: Codable where Element: Codable & Identifiable, ID == Element.ID {
  public init(from decoder: any Decoder) throws {
    self.init(try [Element](from: decoder))
  }

  public func encode(to encoder: any Encoder) throws {
    try elements.encode(to: encoder)
  }
}
