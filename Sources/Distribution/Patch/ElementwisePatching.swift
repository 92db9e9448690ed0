import Bulkhead
internal import Transport

/// Patching an ordered collection by the run of elements that changed: the common prefix and
/// suffix of the old and new elements stay, and the run between them is replaced. Appending,
/// removing or changing one element of many is a patch of that one element.
enum ElementwisePatching {
  /// The splice from `old` to `new`, when both are one collection type that patches by
  /// element and the splice keeps at least one element; nil otherwise.
  static func splice(from old: any Encodable, to new: any Encodable) throws -> StatePatch? {
    guard let new = new as? any SplicePatchable else { return nil }
    return try new.splice(from: old)
  }

  /// `old` with the elements `offset..<(offset + removing)` replaced by `inserting`.
  static func apply<Value>(
    offset: Int, removing: Int, inserting: [[UInt8]], to old: Any, as _: Value.Type
  ) throws -> Value {
    guard let old = old as? any SplicePatchable,
      let patched = try old.replacing(offset: offset, removing: removing, with: inserting) as? Value
    else {
      throw DistributionError.protocolViolation("an element patch arrived for a value that is not a list of elements")
    }
    return patched
  }
}

/// A collection a patch can splice: its elements are `Codable` and `Equatable`.
protocol SplicePatchable {
  associatedtype Element: Codable & Equatable
  var patchableElements: [Element] { get }
  /// This collection with the elements in `range` replaced by `elements`.
  func replacing(_ range: Range<Int>, with elements: [Element]) -> Self
}

extension SplicePatchable {
  /// The splice from `old`, of the same type; nil when it is not, or when no element is kept
  /// (then the whole value says the same in fewer bytes).
  func splice(from old: Any) throws -> StatePatch? {
    guard let old = old as? Self else { return nil }
    let before = old.patchableElements
    let after = patchableElements
    var prefix = 0
    while prefix < before.count, prefix < after.count, before[prefix] == after[prefix] { prefix += 1 }
    var suffix = 0
    while suffix < before.count - prefix, suffix < after.count - prefix,
      before[before.count - 1 - suffix] == after[after.count - 1 - suffix]
    {
      suffix += 1
    }
    let inserted = after[prefix..<(after.count - suffix)]
    // With nothing kept, the whole value says the same in fewer bytes.
    guard inserted.count < after.count else { return nil }
    let encoder = BinaryEncoder()
    return .splice(
      offset: prefix, removing: before.count - prefix - suffix,
      inserting: try inserted.map { try encoder.encode($0) })
  }

  /// This collection with the elements `offset..<(offset + removing)` replaced by the decoded
  /// `encoded` elements.
  func replacing(offset: Int, removing: Int, with encoded: [[UInt8]]) throws -> Self {
    let count = patchableElements.count
    guard offset >= 0, removing >= 0, offset <= count, removing <= count - offset else {
      throw DistributionError.protocolViolation(
        "an element patch replaces \(removing) elements at \(offset) of a list of \(count)")
    }
    let decoder = BinaryDecoder()
    let elements = try encoded.map { try decoder.decode(Element.self, from: $0) }
    return replacing(offset..<(offset + removing), with: elements)
  }
}

extension Array: SplicePatchable where Element: Codable & Equatable {
  var patchableElements: [Element] { self }

  func replacing(_ range: Range<Int>, with elements: [Element]) -> [Element] {
    var copy = self
    copy.replaceSubrange(range, with: elements)
    return copy
  }
}

extension IdentifiedArray: SplicePatchable where Element: Codable & Equatable & Identifiable, ID == Element.ID {
  var patchableElements: [Element] { elements }

  func replacing(_ range: Range<Int>, with elements: [Element]) -> Self {
    var copy = self
    copy.replaceSubrange(range, with: elements)
    return copy
  }
}
