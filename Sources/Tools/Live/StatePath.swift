/// Finds the state of a boundary in a root state by the boundary's path, which names action
/// cases (`profile.avatar`, `_internal.login`): a feature keeps a child's state in a
/// property named as the action case that carries the child's actions (`counter1`, or
/// `_destination` behind a property wrapper), so each segment is looked up as a property,
/// through optionals and enum cases; a segment no property has (`_internal`, `view`, which
/// only group actions) is passed over.
///
/// ```swift
/// StatePath.find("counter1", in: TwoCounters.State())  // Counter.State(count: 0)
/// ```
enum StatePath {
  /// The state at `path` in `root`; nil when no segment names a property.
  static func find(_ path: String, in root: Any) -> Any? {
    var value = root
    var found = false
    for segment in path.split(separator: ".").map(String.init) {
      guard let child = property(segment, of: value) else { continue }
      value = child
      found = true
    }
    return found ? value : nil
  }

  /// `value` as `run` prints a state: an optional's contents, or `nil`.
  static func printed(_ value: Any) -> String {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .optional else { return "\(value)" }
    return mirror.children.first.map { printed($0.value) } ?? "nil"
  }

  /// The property (or enum case payload) `name` of `value`, looking through optionals.
  private static func property(_ name: String, of value: Any) -> Any? {
    let mirror = Mirror(reflecting: value)
    if mirror.displayStyle == .optional {
      return mirror.children.first.flatMap { property(name, of: $0.value) }
    }
    return mirror.children.first { $0.label == name || $0.label == "_" + name }?.value
  }
}
