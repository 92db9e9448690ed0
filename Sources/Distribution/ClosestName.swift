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

  /// The edits from one name to the other: insertions, deletions, substitutions, and swaps of
  /// two neighbours (`sned` is one edit from `send`), as compose.sh counts them.
  private static func edits(_ from: [Character], _ to: [Character]) -> Int {
    var table = [[Int]](repeating: [Int](repeating: 0, count: to.count + 1), count: from.count + 1)
    for row in 0...from.count { table[row][0] = row }
    for column in 0...to.count { table[0][column] = column }
    for row in stride(from: 1, through: from.count, by: 1) {
      for column in stride(from: 1, through: to.count, by: 1) {
        let cost = from[row - 1] == to[column - 1] ? 0 : 1
        var best = min(table[row - 1][column] + 1, table[row][column - 1] + 1, table[row - 1][column - 1] + cost)
        if row > 1, column > 1, from[row - 1] == to[column - 2], from[row - 2] == to[column - 1] {
          best = min(best, table[row - 2][column - 2] + 1)
        }
        table[row][column] = best
      }
    }
    return table[from.count][to.count]
  }
}
