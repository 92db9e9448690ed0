import Foundation

/// Where `send` takes its actions from: one written on the command line, or a file of them,
/// one a line, as `./compose.sh send APP --file FILE` reads it: lines may end in LF or CRLF,
/// and blank lines and lines that start with `#` are passed over.
///
/// ```swift
/// let actions = try ActionSource.file("steps.txt").actions()  // [(place: "steps.txt:2", text: "…")]
/// ```
enum ActionSource: Equatable {
  case text(String)
  case file(String)

  /// One action to send, and where it was written, for messages: `FILE:LINE`, or nil for
  /// the command line.
  struct Action: Equatable {
    let place: String?
    let text: String
  }

  /// The actions, in order.
  ///
  /// - Throws: `ActionFileError` for a file that cannot be read, holds a NUL byte or
  ///   is not UTF-8 (naming the line), or holds no action.
  func actions() throws(ActionFileError) -> [Action] {
    switch self {
    case let .text(text):
      return [Action(place: nil, text: text)]
    case let .file(path):
      guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
      var actions: [Action] = []
      for (index, bytes) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
        let place = "\(path):\(index + 1)"
        guard !bytes.contains(0) else { throw .nul(place: place) }
        guard var line = String(bytes: bytes, encoding: .utf8) else { throw .notUTF8(place: place) }
        if line.hasSuffix("\r") { line.removeLast() }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
        actions.append(Action(place: place, text: trimmed))
      }
      guard !actions.isEmpty else { throw .empty(path: path) }
      return actions
    }
  }
}

/// Why a file of actions cannot be sent, naming the file and line.
enum ActionFileError: Error, Equatable, CustomStringConvertible {
  case unreadable(path: String)
  case nul(place: String)
  case notUTF8(place: String)
  case empty(path: String)

  var description: String {
    switch self {
    case let .unreadable(path): "cannot read the file of actions \(path)"
    case let .nul(place): "\(place): the line holds a NUL byte; a file of actions is text, one action a line"
    case let .notUTF8(place): "\(place): the line is not UTF-8 text"
    case let .empty(path): "\(path) holds no action: every line is blank or a # comment"
    }
  }
}
