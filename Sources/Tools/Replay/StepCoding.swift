import Bulkhead
import BulkheadDistribution
import Foundation

/// How a recording writes and reads an app's root states and actions: JSON where the type is
/// `Codable`, though the generic code that holds it does not require it; a printed dump of a
/// state that is not.
///
/// ```swift
/// let coding = StepCoding<Counter.State, Counter.Action>()
/// try coding.text(of: Counter.State())  // .encoded("{\"count\":0}")
/// ```
struct StepCoding<State, Action> {
  /// Whether outside actions can be written so that a replay sends them again.
  var actionsAreCodable: Bool { Action.self is any Codable.Type }

  /// `state` as the recording holds it.
  func text(of state: State) throws -> StateText {
    guard let encodable = state as? any Encodable, State.self is any Decodable.Type else {
      return .dump(render(state).joined(separator: "\n"))
    }
    return .encoded(try Self.canonicalJSON(encodable))
  }

  /// Whether `state` is the state a recording holds as `recorded`: by the state's own `==`
  /// when it is `Equatable` and the recording decodes — so that what equality ignores (an
  /// alert's random id) and what has no order (a set, a dictionary) do not count — and
  /// otherwise by the text.
  func state(_ state: State, matches recorded: StateText) throws -> Bool {
    if case let .encoded(json) = recorded, let equatable = state as? any Equatable, let old = try self.state(from: json) {
      return Self.isEqual(equatable, old)
    }
    return try text(of: state) == recorded
  }

  private static func isEqual<Value: Equatable>(_ value: Value, _ other: Any) -> Bool {
    value == other as? Value
  }

  /// `action` encoded, or nil when its type is not `Codable`.
  func sent(_ action: Action) throws -> String? {
    guard let encodable = action as? any Encodable, actionsAreCodable else { return nil }
    return try Self.canonicalJSON(encodable)
  }

  /// The action a recording holds as `json`.
  func action(from json: String) throws -> Action? {
    try Self.decode(json, as: Action.self)
  }

  /// The state a recording holds as `json`, to print a diff against; nil when the type is not
  /// `Codable`.
  func state(from json: String) throws -> State? {
    try Self.decode(json, as: State.self)
  }

  private static func decode<Value>(_ json: String, as _: Value.Type) throws -> Value? {
    guard let decodable = Value.self as? any Decodable.Type else { return nil }
    return try JSONDecoder().decode(decodable, from: Data(json.utf8)) as? Value
  }

  /// Encoded, then parsed and written again with sorted keys, as the reader of a recording
  /// writes what it parsed: numbers and key order come out alike on both sides.
  private static func canonicalJSON(_ value: any Encodable) throws -> String {
    let data = try JSONEncoder().encode(value)
    return try RecordingFormat.canonical(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
  }
}
