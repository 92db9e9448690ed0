/// The elements of a navigation stack, each with a `StackElementID` that the stack hands out
/// as elements arrive and never reuses.
///
/// Run a reducer on every element with `forEach(_:action:destination:)`; push by appending
/// (or by assigning at an id the stack does not hold, as tests assert pushes), pop with
/// `pop(from:)` or `pop(to:)`:
///
/// ```swift
/// struct State { var path = StackState<Path.State>() }
///
/// state.path.append(.detail(Detail.State()))   // gets the id #0
/// state.path[id: 0]                             // .detail(Detail.State())
/// state.path.pop(from: 0)                       // empty again; the next id is #1
/// state.path[id: 1] = .detail(Detail.State())   // pushed with the id #1; the next is #2
/// ```
public struct StackState<Element> {
  /// The ids of the elements, from the bottom of the stack up.
  public private(set) var ids: [StackElementID]
  private var elements: [Element]
  private var nextGeneration: Int
  /// The ids that the stack's `forEach` saw after the last action it ran, so that it notices
  /// elements removed by other reducers in between and cancels their effects. Neither compared
  /// nor encoded.
  var mounted: [StackElementID] = []

  /// An empty stack.
  public init() {
    self.init([Element]())
  }

  /// A stack of `elements`, with ids `#0`, `#1`, … from the bottom up.
  ///
  /// ```swift
  /// StackState([Path.State.detail(Detail.State())])
  /// ```
  public init(_ elements: some Sequence<Element>) {
    self.elements = Array(elements)
    ids = self.elements.indices.map(StackElementID.init(generation:))
    nextGeneration = ids.count
  }

  /// The id the next element pushed onto this stack gets.
  ///
  /// ```swift
  /// store.send(.path(.push(id: store.state.path.nextID, state: .detail(Detail.State()))))
  /// ```
  public var nextID: StackElementID { StackElementID(generation: nextGeneration) }

  /// The element with `id`, or nil. Setting nil pops just that element. Setting a value
  /// replaces the element with `id`, or, when the stack does not hold `id`, pushes the value
  /// on top with that id, as a `push` action does (`nextID` stays beyond it). So a test
  /// asserts a push by the id it gets:
  ///
  /// ```swift
  /// await store.send(.rowTapped(id: 2)) { $0.path[id: 0] = .detail(Detail.State(rowID: 2)) }
  /// ```
  public subscript(
    id id: StackElementID, fileID fileID: StaticString = #fileID, line line: UInt = #line
  ) -> Element? {
    get { ids.firstIndex(of: id).map { elements[$0] } }
    set {
      switch (ids.firstIndex(of: id), newValue) {
      case let (index?, element?):
        elements[index] = element
      case let (index?, nil):
        ids.remove(at: index)
        elements.remove(at: index)
      case let (nil, element?):
        guard !push(element, id: id) else { return }
        RuntimeWarning.report(
          """
          An element was assigned at \(id), the last id there is: no id could follow it, so \
          it cannot be pushed. Nothing changed.

          To add an element, append it (it gets the stack's "nextID").
          """, at: SourceLocation(fileID: fileID, line: line))
      case (nil, nil):
        break
      }
    }
  }

  /// Removes the element with `id` and every element above it; nothing when `id` is not in
  /// the stack.
  ///
  /// ```swift
  /// state.path.pop(from: id)  // back to the screen under `id`
  /// ```
  public mutating func pop(from id: StackElementID) {
    guard let index = ids.firstIndex(of: id) else { return }
    removeSubrange(index...)
  }

  /// Removes every element above the one with `id`; nothing when `id` is not in the stack.
  ///
  /// ```swift
  /// state.path.pop(to: state.path.ids[0])  // back to the first pushed screen
  /// ```
  public mutating func pop(to id: StackElementID) {
    guard let index = ids.firstIndex(of: id) else { return }
    removeSubrange((index + 1)...)
  }

  /// Changes the element with `id` in place; false when there is none.
  mutating func modify(id: StackElementID, _ body: (inout Element) -> Void) -> Bool {
    guard let index = ids.firstIndex(of: id) else { return false }
    body(&elements[index])
    return true
  }

  /// Puts `element` on top with the id `id`, which the stack does not hold; later ids follow
  /// it. False, and nothing pushed, for the last id there is, which no id could follow.
  mutating func push(_ element: Element, id: StackElementID) -> Bool {
    guard id.generation < Int.max else { return false }
    ids.append(id)
    elements.append(element)
    nextGeneration = Swift.max(nextGeneration, id.generation + 1)
    return true
  }
}

extension StackState: RandomAccessCollection, RangeReplaceableCollection {
  public var startIndex: Int { elements.startIndex }
  public var endIndex: Int { elements.endIndex }
  public subscript(position: Int) -> Element { elements[position] }

  /// Replaces the elements in `subrange`; new elements get fresh ids.
  public mutating func replaceSubrange(
    _ subrange: Range<Int>, with newElements: some Collection<Element>
  ) {
    let newIDs = (nextGeneration..<nextGeneration + newElements.count).map(StackElementID.init(generation:))
    nextGeneration += newElements.count
    ids.replaceSubrange(subrange, with: newIDs)
    elements.replaceSubrange(subrange, with: newElements)
  }

  /// Removes every element; the ids handed out so far stay used.
  public mutating func removeAll(keepingCapacity keepCapacity: Bool = false) {
    ids.removeAll(keepingCapacity: keepCapacity)
    elements.removeAll(keepingCapacity: keepCapacity)
  }

  /// Removes the elements that satisfy `shouldBeRemoved`; the others keep their ids.
  public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
    let kept = try elements.indices.filter { try !shouldBeRemoved(elements[$0]) }
    ids = kept.map { ids[$0] }
    elements = kept.map { elements[$0] }
  }
}

extension StackState: ExpressibleByArrayLiteral {
  public init(arrayLiteral elements: Element...) { self.init(elements) }
}

/// Two stacks are equal when they hold equal elements under the same ids.
extension StackState: Equatable where Element: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.ids == rhs.ids && lhs.elements == rhs.elements
  }
}

extension StackState: Hashable where Element: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ids)
    hasher.combine(elements)
  }
}

extension StackState: Sendable where Element: Sendable {}

/// Encoded with its ids and the next id, so that a copy decoded in another process hands out
/// the same ids as the original.
extension StackState: Codable where Element: Codable {
  private enum CodingKeys: String, CodingKey {
    case ids, elements, next
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    ids = try container.decode([StackElementID].self, forKey: .ids)
    elements = try container.decode([Element].self, forKey: .elements)
    nextGeneration = try container.decode(Int.self, forKey: .next)
    guard ids.count == elements.count, Set(ids).count == ids.count,
      ids.allSatisfy({ $0.generation < nextGeneration })
    else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "a stack's ids and elements do not match"))
    }
    // A decoded copy counts every element as seen, so that popping one cancels its effects.
    mounted = ids
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(ids, forKey: .ids)
    try container.encode(elements, forKey: .elements)
    try container.encode(nextGeneration, forKey: .next)
  }
}

extension StackState: CustomStringConvertible {
  public var description: String {
    "[" + zip(ids, elements).map { "\($0): \($1)" }.joined(separator: ", ") + "]"
  }
}

/// Shown to diffs as a dictionary from ids to elements.
extension StackState: CustomReflectable {
  public var customMirror: Mirror {
    Mirror(self, unlabeledChildren: Array(zip(ids, elements)), displayStyle: .dictionary)
  }
}
