extension PrintedValue {
  /// The node as JSON text: what `JSONDecoder` hands the value's `Decodable`.
  var json: String {
    switch shape {
    case let .object(members):
      "{" + members.map { Self.quoted($0.key) + ":" + $0.value.json }.joined(separator: ",") + "}"
    case let .array(elements): "[" + elements.map(\.json).joined(separator: ",") + "]"
    case let .string(text): Self.quoted(text)
    case let .number(text): text
    case let .bool(value): value ? "true" : "false"
    case .null: "null"
    }
  }

  /// `text` as a JSON string literal.
  private static func quoted(_ text: String) -> String {
    var quoted = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": quoted += "\\\""
      case "\\": quoted += "\\\\"
      case "\n": quoted += "\\n"
      case "\r": quoted += "\\r"
      case "\t": quoted += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: quoted.unicodeScalars.append(scalar)
      }
    }
    return quoted + "\""
  }
}
