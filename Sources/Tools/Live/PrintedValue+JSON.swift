extension PrintedValue {
  /// The node as JSON text: what `JSONDecoder` hands the value's `Decodable`.
  var json: String {
    switch shape {
    case let .object(members):
      "{" + members.map { jsonString($0.key) + ":" + $0.value.json }.joined(separator: ",") + "}"
    case let .array(elements): "[" + elements.map(\.json).joined(separator: ",") + "]"
    case let .string(text): jsonString(text)
    case let .number(text): text
    case let .bool(value): value ? "true" : "false"
    case .null: "null"
    }
  }
}
