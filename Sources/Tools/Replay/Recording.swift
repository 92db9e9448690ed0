import Bulkhead
import BulkheadDistribution
import Foundation

/// A recording read back from its file, checked line by line: what `--replay` runs again.
///
/// ```swift
/// let recording = try Recording(contentsOf: "run.jsonl")
/// recording.app    // "two-counters"
/// recording.steps  // every action the store processed, with the state after it
/// ```
struct Recording {
  /// One action the recorded store processed.
  struct Step {
    /// The line of the file it was read from, for messages.
    let line: Int
    let source: RecordingFormat.Source
    /// Seconds since the store started.
    let at: Double
    /// The action as printed.
    let action: String
    /// The action encoded, for an outside action of a `Codable` type.
    let sent: String?
    /// The state after the action.
    let state: StateText
  }

  let file: String
  let app: String
  let placement: String
  let stateType: String
  let actionType: String
  let steps: [Step]

  /// Reads and checks the recording at `path`.
  init(contentsOf path: String) throws(RecordingError) {
    func wrong(_ line: Int, _ reason: String) -> RecordingError { RecordingError(file: path, line: line, reason: reason) }
    var isDirectory: ObjCBool = false
    guard !path.isEmpty, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw wrong(0, "there is no recording at this path")
    }
    guard !isDirectory.boolValue else { throw wrong(0, "this is a directory, not a recording") }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw wrong(0, "the recording cannot be read (check its permissions)")
    }
    try self.init(data: data, file: path)
  }

  /// Parses the bytes of a recording; `file` names it in errors.
  init(data: Data, file: String) throws(RecordingError) {
    func wrong(_ line: Int, _ reason: String) -> RecordingError { RecordingError(file: file, line: line, reason: reason) }
    var lines = [UInt8](data).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }
    guard !lines.isEmpty else { throw wrong(0, "the file is empty, not a recording") }
    for (index, line) in lines.enumerated() {
      if line.contains(0) { throw wrong(index + 1, "the line holds a NUL byte; a recording is UTF-8 text") }
      if line.last == UInt8(ascii: "\r") {
        throw wrong(index + 1, "the line ends with CR LF; a recording's lines end with LF alone (convert it with dos2unix)")
      }
      if line.isEmpty { throw wrong(index + 1, "the line is empty; every line of a recording is one JSON object") }
    }
    let header = try Self.object(lines[0], line: 1, file: file)
    guard header["format"] as? String == RecordingFormat.name else {
      throw wrong(1, "not a Bulkhead recording: its first line must be a header with \"format\": \"\(RecordingFormat.name)\"")
    }
    guard let version = header["version"] as? Int else {
      throw wrong(1, "the header's \"version\" must be a whole number; it is \(RecordingFormat.describe(header["version"]))")
    }
    guard version == RecordingFormat.version else {
      throw wrong(1, "the recording has format version \(version); this host reads version \(RecordingFormat.version)")
    }
    func text(_ key: String) throws(RecordingError) -> String {
      guard let value = header[key] as? String else { throw wrong(1, "the header has no \"\(key)\" text") }
      return value
    }
    self.file = file
    app = try text("app")
    placement = try text("placement")
    stateType = try text("state")
    actionType = try text("action")
    var steps: [Step] = []
    for (index, line) in lines.enumerated().dropFirst() {
      steps.append(try Self.step(try Self.object(line, line: index + 1, file: file), number: steps.count + 1, line: index + 1, file: file))
    }
    self.steps = steps
  }

  private static func object(_ bytes: ArraySlice<UInt8>, line: Int, file: String) throws(RecordingError) -> [String: Any] {
    guard let parsed = try? JSONSerialization.jsonObject(with: Data(bytes)), let object = parsed as? [String: Any] else {
      throw RecordingError(
        file: file, line: line,
        reason: line == 1 ? "not a Bulkhead recording: the first line is not a JSON header" : "the line is not a JSON object")
    }
    if let key = RepeatedKey.first(in: bytes) {
      throw RecordingError(file: file, line: line, reason: "the key \"\(key)\" appears twice in one object: which one counts is not clear")
    }
    return object
  }

  private static func step(_ object: [String: Any], number: Int, line: Int, file: String) throws(RecordingError) -> Step {
    func wrong(_ reason: String) -> RecordingError { RecordingError(file: file, line: line, reason: reason) }
    guard object["step"] as? Int == number else {
      throw wrong("expected step \(number) here; \"step\" is \(RecordingFormat.describe(object["step"]))")
    }
    guard let from = object["from"] as? String, let source = RecordingFormat.Source(rawValue: from) else {
      throw wrong("\"from\" must be \"outside\" or \"effect\"")
    }
    guard let at = object["at"] as? Double, at >= 0 else { throw wrong("\"at\" must be the seconds since the start, 0 or more") }
    guard let action = object["action"] as? String else { throw wrong("the step has no \"action\" text") }
    let state: StateText
    do {
      if let encoded = object["state"] {
        state = .encoded(try RecordingFormat.canonical(encoded))
      } else if let dump = object["dump"] as? String {
        state = .dump(dump)
      } else {
        throw wrong("the step has neither a \"state\" nor a \"dump\"")
      }
      return Step(
        line: line, source: source, at: at, action: action, sent: try object["sent"].map(RecordingFormat.canonical), state: state)
    } catch let error as RecordingError {
      throw error
    } catch {
      throw wrong("the step's JSON cannot be written back: \(error)")
    }
  }
}
