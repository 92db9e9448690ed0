import Foundation

/// Which boundaries of an app run in worker processes. Feature code never sees it: the same app
/// runs in one process with an empty placement, and split across processes with another.
///
/// The file format is one boundary per line, named by its action case path, with `#` comments:
///
/// ```
/// # Two Counters, each counter in a worker of its own.
/// counter1
/// counter2
/// rows pool 3   # a forEach boundary whose elements are spread over three workers
/// ```
public struct Placement: Sendable, Equatable {
  /// One placed boundary.
  public struct Entry: Sendable, Equatable {
    /// The boundary's dotted action case path.
    public let path: String
    /// How many workers serve it: 1, or a pool for a `forEach` boundary.
    public let workers: Int
    /// Where the entry is written, for error messages.
    public let line: Int

    /// Places `path` in `workers` workers; `line` locates the entry in error messages.
    public init(path: String, workers: Int = 1, line: Int = 0) {
      self.path = path
      self.workers = workers
      self.line = line
    }
  }

  /// The file the placement was read from, for error messages.
  public let file: String
  public let entries: [Entry]

  /// Every boundary in the host's process.
  public static let inProcess = Placement(file: "(no placement)", entries: [])

  /// A placement made in code; `file` names it in error messages.
  public init(file: String, entries: [Entry]) {
    self.file = file
    self.entries = entries
  }

  /// Reads and parses the placement file at `path`.
  public init(contentsOf path: String) throws(DistributionError) {
    guard let data = FileManager.default.contents(atPath: path),
      let text = String(data: data, encoding: .utf8)
    else {
      throw .placement(file: path, line: 0, reason: "cannot read the placement file")
    }
    try self.init(parsing: text, file: path)
  }

  /// Parses placement `text`; `file` names it in errors.
  ///
  /// ```swift
  /// try Placement(parsing: "counter1\ncounter2\n", file: "two.placement")
  /// ```
  public init(parsing text: String, file: String) throws(DistributionError) {
    var entries: [Entry] = []
    for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = index + 1
      let content = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
      let words = content.split(whereSeparator: \.isWhitespace).map(String.init)
      guard let path = words.first else { continue }
      var workers = 1
      switch words.count {
      case 1:
        break
      case 3 where words[1] == "pool":
        guard let size = Int(words[2]), (1...64).contains(size) else {
          throw .placement(
            file: file, line: line, reason: "a pool size must be a number from 1 to 64, not \"\(words[2])\"")
        }
        workers = size
      default:
        throw .placement(
          file: file, line: line,
          reason: "expected \"<boundary>\" or \"<boundary> pool <size>\", found \"\(content.trimmingCharacters(in: .whitespaces))\"")
      }
      if let first = entries.first(where: { $0.path == path }) {
        throw .placement(
          file: file, line: line, reason: "\"\(path)\" is placed twice (first on line \(first.line))")
      }
      entries.append(Entry(path: path, workers: workers, line: line))
    }
    self.init(file: file, entries: entries)
  }

  /// Checks every entry against the app's boundaries.
  public func validate(against boundaries: [BoundaryDescription]) throws(DistributionError) {
    let known = boundaries.map(\.path)
    for entry in entries {
      guard let boundary = boundaries.first(where: { $0.path == entry.path }) else {
        throw .placement(
          file: file, line: entry.line,
          reason: "this app has no boundary \"\(entry.path)\"; its boundaries are: \(known.joined(separator: ", "))")
      }
      if entry.workers > 1, boundary.kind != .forEach {
        throw .placement(
          file: file, line: entry.line,
          reason: "\"\(entry.path)\" is a \(boundary.kind.rawValue) boundary; only forEach boundaries take a pool")
      }
      if let outer = entries.first(where: { entry.path.hasPrefix($0.path + ".") }) {
        throw .placement(
          file: file, line: entry.line,
          reason: "\"\(entry.path)\" is inside \"\(outer.path)\" (line \(outer.line)), which already runs in a worker with everything inside it")
      }
    }
  }
}
