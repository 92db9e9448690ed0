/// Renders `value` as indented Swift-like source: one line per field, nested values indented.
///
/// ```swift
/// render(TwoCounters.State())
/// // TwoCounters.State(
/// //   counter1: Counter.State(count: 0),
/// //   counter2: Counter.State(count: 0)
/// // )
/// ```
///
/// The test store's failures and a replay's divergence report both print with it.
package func render(_ value: Any) -> [String] {
  let mirror = Mirror(reflecting: value)
  switch mirror.displayStyle {
  case .optional:
    guard let wrapped = mirror.children.first?.value else { return ["nil"] }
    return render(wrapped)
  case .enum:
    let name = mirror.children.first?.label ?? "\(value)"
    guard let payload = mirror.children.first?.value else { return [".\(name)"] }
    return wrap(".\(name)(", render(payload), ")")
  case .collection, .set:
    return block("[", mirror.children.map { render($0.value) }, "]")
  case .dictionary:
    let items = mirror.children.map { entry -> [String] in
      let pair = Array(Mirror(reflecting: entry.value).children)
      guard pair.count == 2 else { return render(entry.value) }
      return wrap("\(render(pair[0].value).joined()): ", render(pair[1].value), "")
    }
    return block("[", items, "]")
  case .struct, .class, .tuple:
    // A value that shows no fields but prints itself (a UUID, a Date): its text tells values apart.
    if mirror.children.isEmpty, let printable = value as? any CustomStringConvertible { return [printable.description] }
    let typeName = mirror.displayStyle == .tuple ? "" : typeDescription(of: value)
    let items = mirror.children.map { child -> [String] in
      guard let label = child.label, !label.hasPrefix(".") else { return render(child.value) }
      return wrap("\(label): ", render(child.value), "")
    }
    return block("\(typeName)(", items, ")", inline: items.count <= 1)
  default:
    if let string = value as? String { return ["\"\(string)\""] }
    return ["\(value)"]
  }
}

/// `value` on one line and named with its type, for the first line of a message:
/// `Logger.Action.second`, `App.Action.counter(.incrementButtonTapped)`. A value too long for
/// one line keeps its case and elides the rest, `App.Action.edit(…)`, to be shown in full below.
package func renderHeadline(_ value: Any) -> String {
  let lines = render(value)
  let name = typeDescription(of: value)
  let isCase = lines[0].hasPrefix(".")
  guard lines.count > 1 else { return isCase ? name + lines[0] : lines[0] }
  return name + (isCase ? lines[0].prefix { $0 != "(" } : "") + "(…)"
}

private func typeDescription(of value: Any) -> String {
  // Drop the module prefix, which every line would otherwise repeat, and the anonymous
  // context that private types carry.
  let name = String(reflecting: type(of: value))
    .replacing(/\(unknown context at \$[0-9a-f]+\)\./, with: "")
  guard let dot = name.firstIndex(of: ".") else { return name }
  return String(name[name.index(after: dot)...])
}

/// Puts `open` before the first line and `close` after the last.
private func wrap(_ open: String, _ lines: [String], _ close: String) -> [String] {
  var lines = lines
  lines[0] = open + lines[0]
  lines[lines.count - 1] += close
  return lines
}

/// A bracketed list: on one line when allowed, short and flat, else one indented item per
/// line.
private func block(
  _ open: String, _ items: [[String]], _ close: String, inline: Bool = true
) -> [String] {
  let flat = items.allSatisfy { $0.count == 1 }
  let oneLine = open + items.map { $0.joined() }.joined(separator: ", ") + close
  if inline && flat && oneLine.count <= 60 { return [oneLine] }
  var lines = [open]
  for (index, item) in items.enumerated() {
    var item = item.map { "  " + $0 }
    if index < items.count - 1 { item[item.count - 1] += "," }
    lines += item
  }
  lines.append(close)
  return lines
}

/// A line diff of two rendered values: unchanged lines start with two spaces, lines only in
/// `expected` with "−", lines only in `actual` with "+". Long unchanged runs are folded.
package func diff(_ expected: Any, _ actual: Any) -> String {
  diff(lines: render(expected), render(actual))
}

/// A line diff of two texts already rendered, one line per element, marked and folded as
/// `diff(_:_:)` marks them: for values known only as text, such as a recorded state.
///
/// ```swift
/// diff(lines: ["count: 1"], ["count: 2"])  // "− count: 1\n+ count: 2"
/// ```
package func diff(lines old: [String], _ new: [String]) -> String {
  // Longest common subsequence, by dynamic programming from the end.
  var common = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
  for i in stride(from: old.count - 1, through: 0, by: -1) {
    for j in stride(from: new.count - 1, through: 0, by: -1) {
      common[i][j] =
        old[i] == new[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
    }
  }
  var lines: [(mark: Character, text: String)] = []
  var i = 0
  var j = 0
  while i < old.count || j < new.count {
    if i < old.count, j < new.count, old[i] == new[j] {
      lines.append((" ", old[i]))
      i += 1
      j += 1
    } else if i < old.count, j == new.count || common[i + 1][j] >= common[i][j + 1] {
      lines.append(("−", old[i]))
      i += 1
    } else {
      lines.append(("+", new[j]))
      j += 1
    }
  }
  return fold(lines).joined(separator: "\n")
}

private func fold(_ lines: [(mark: Character, text: String)]) -> [String] {
  let context = 2
  let changed = lines.indices.filter { lines[$0].mark != " " }
  var output: [String] = []
  var skipped = 0
  for (index, line) in lines.enumerated() {
    let isNearChange = changed.contains { abs($0 - index) <= context }
    if line.mark == " " && !isNearChange && index != 0 && index != lines.count - 1 {
      skipped += 1
      continue
    }
    if skipped > 0 {
      output.append("  … (\(skipped) unchanged)")
      skipped = 0
    }
    output.append("\(line.mark) \(line.text)")
  }
  return output
}
