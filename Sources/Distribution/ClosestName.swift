/// The name a mistyped one most likely meant, for the "did you mean" of an error message.
///
/// ```swift
/// ClosestName.to("countr1", among: ["counter1", "counter2"])  // "counter1"
/// ```
package enum ClosestName {
  /// The name among `names` fewest edits away from `name` (ignoring case), if it is close
  /// enough to be a slip: at most a third of its letters, and at least one, wrong. Nil when
  /// `name` is one of them.
  package static func to(_ name: String, among names: [String]) -> String? {
    guard !names.contains(name) else { return nil }
    let typed = Array(name.lowercased())
    let scored = names.map { (name: $0, edits: edits(typed, Array($0.lowercased()))) }
    guard let best = scored.min(by: { $0.edits < $1.edits }) else { return nil }
    return best.edits <= max(1, typed.count / 3) ? best.name : nil
  }

  /// " (did you mean X?)" for the closest name, or nothing.
  package static func suggestion(for name: String, among names: [String]) -> String {
    to(name, among: names).map { " (did you mean \"\($0)\"?)" } ?? ""
  }

  /// The Levenshtein distance: insertions, deletions and substitutions, one row at a time.
  private static func edits(_ from: [Character], _ to: [Character]) -> Int {
    var previous = Array(0...to.count)
    for (row, character) in from.enumerated() {
      var current = [row + 1]
      for (column, other) in to.enumerated() {
        current.append(min(previous[column + 1] + 1, current[column] + 1, previous[column] + (character == other ? 0 : 1)))
      }
      previous = current
    }
    return previous[to.count]
  }
}
