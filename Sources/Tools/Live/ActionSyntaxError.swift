/// Why the text of an action does not make an action: the column (from 1) where it stops
/// making sense, what is wrong there, and the cases that would fit there, if it names a
/// case its enum lacks.
///
/// ```swift
/// catch let error as ActionSyntaxError {
///   print(error.pointing(at: text))  // the text, a caret under the column, the problem
/// }
/// ```
struct ActionSyntaxError: Error, Equatable {
  let column: Int
  let problem: String
  /// The cases of the enum expected at `column`, when a case name was wrong there.
  var fitting: [String] = []

  /// The problem, then `text` with a caret under the column, then the cases that fit.
  func pointing(at text: String) -> String {
    let line = text.map { $0.isNewline ? " " : $0 }
    var lines = [
      "at column \(column): \(problem)",
      "  " + String(line),
      "  " + String(repeating: " ", count: max(0, column - 1)) + "^",
    ]
    if !fitting.isEmpty { lines.append("the cases that fit there: " + fitting.joined(separator: ", ")) }
    return lines.joined(separator: "\n")
  }
}
