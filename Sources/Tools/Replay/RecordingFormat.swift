import Bulkhead
import BulkheadDistribution
import Foundation

/// The file `--record` writes and `--replay` reads: JSON lines. The first line is a header
/// naming the format, its version, the app, the placement it ran with and its root types;
/// then one line per action the root store processed, in order:
///
///     {"format":"bulkhead-recording","version":1,"app":"two-counters","placement":"…","state":"Examples.TwoCounters.State","action":"Examples.TwoCounters.Action"}
///     {"step":1,"from":"outside","at":0.000412,"action":"counter1(…)","sent":{…},"state":{…}}
///     {"step":2,"from":"effect","at":1.001733,"action":"…","state":{…}}
///
/// `from` says who sent the action: the app's script (`outside`, which replay sends again)
/// or an effect (`effect`, which replay waits for). `at` is seconds since the store started.
/// `sent` is the action encoded, present only for outside actions of a `Codable` type. The
/// state after the action is `state`, encoded, when the root state is `Codable`, and
/// otherwise `dump`, the text a test failure would print.
enum RecordingFormat {
  static let name = "bulkhead-recording"
  static let version = 1

  /// Who sent a recorded action into the store.
  enum Source: String {
    /// The app's script: replay sends it again.
    case outside
    /// An effect: replay waits for it to come again by itself.
    case effect
  }

  /// The first line of a recording.
  static func header(app: String, placement: String, stateType: String, actionType: String) throws -> String {
    try object([
      ("format", json(name)), ("version", "\(version)"), ("app", json(app)), ("placement", json(placement)),
      ("state", json(stateType)), ("action", json(actionType)),
    ])
  }

  /// The line of one processed action; `state` and `sent` are JSON text already.
  static func step(
    _ number: Int, from source: Source, at seconds: Double, action: String, sent: String?, state: StateText
  ) throws -> String {
    var fields = try [
      ("step", "\(number)"), ("from", json(source.rawValue)), ("at", String(format: "%.6f", seconds)),
      ("action", json(action)),
    ]
    if let sent { fields.append(("sent", sent)) }
    switch state {
    case let .encoded(text): fields.append(("state", text))
    case let .dump(text): fields.append(("dump", try json(text)))
    }
    return try object(fields)
  }

  /// A JSON object with its fields in the order given, which the reader of the file sees.
  private static func object(_ fields: [(String, String)]) throws -> String {
    "{" + (try fields.map { "\(try json($0.0)):\($0.1)" }).joined(separator: ",") + "}"
  }

  fileprivate static func json(_ string: String) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: string, options: [.fragmentsAllowed, .withoutEscapingSlashes]), as: UTF8.self)
  }

  /// `object` (parsed JSON) as JSON text with sorted keys: two encodings of one value give
  /// the same text, whichever encoder wrote them.
  static func canonical(_ object: Any) throws -> String {
    String(
      decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]),
      as: UTF8.self)
  }
}

extension RecordingFormat {
  /// What a parsed JSON value is, for a message about a field of the wrong type.
  ///
  /// ```swift
  /// RecordingFormat.describe("1")  // the text "1"
  /// ```
  static func describe(_ value: Any?) -> String {
    switch value {
    case nil: "missing"
    case is NSNull: "null"
    case let text as String: "the text \((try? json(text)) ?? text)"
    case let number as NSNumber: "the value \(number)"
    case is [Any]: "a list"
    case is [String: Any]: "an object"
    case let other?: "\(type(of: other))"
    }
  }
}

/// A root state as a recording holds it: its JSON encoding, with sorted keys, or, for a state
/// that is not `Codable`, its printed dump.
enum StateText: Equatable {
  case encoded(String)
  case dump(String)
}
