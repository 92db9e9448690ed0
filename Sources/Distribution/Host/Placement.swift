import Bulkhead
import Foundation
internal import Transport

/// Which boundaries of an app run in worker processes. Feature code never sees it: the same app
/// runs in one process with an empty placement, and split across processes with another.
///
/// The file format is one boundary per line, named by its action case path, with `#` comments
/// and optional settings after the name:
///
/// ```
/// # Two Counters, each counter in a worker of its own.
/// counter1
/// counter2 deadline 500ms   # a worker that takes longer to answer is killed and restarted
/// rows pool 3               # a forEach boundary whose elements are spread over three workers
/// ```
///
/// `pool N` (1…1,024, `forEach` only), `deadline D` (how long a worker may take to answer one
/// request; default 2s) and `startup D` (how long a new worker may take to connect and greet;
/// default 10s), with `D` in `ms` or `s`. Limits on each worker, enforced by the kernel
/// (docs/limits.md): `memory SIZE` (16MB…1TB, in KB, MB or GB), `cpu P%` (of one core,
/// 1%…6400%), `files N` (16…1048576); a line `* memory 256MB files 256` sets them for every
/// placed boundary that does not set its own. A line `warm N` (0…16, default 2) sets how many
/// idle workers the composition keeps started ahead for the `ifLet`, `ifCaseLet` and
/// presented boundaries it places (its warm pool; 0: each keeps a worker of its own).
///
/// ```swift
/// let placement = try Placement(contentsOf: "placements/two-counters.placement")
/// placement.entries.map(\.path)  // ["counter1", "counter2"]
/// ```
public struct Placement: Sendable, Equatable {
  /// The most workers a `pool N` may have. Each costs the host descriptors and threads
  /// (`bulkhead-benchmark scaling` measures them), and the host raises its own descriptor limit
  /// to what the placement needs, or says it cannot.
  ///
  /// ```swift
  /// Placement.largestPool  // 1024
  /// ```
  public static let largestPool = 1_024

  /// One placed boundary: a line of the file.
  ///
  /// ```swift
  /// for entry in placement.entries { print(entry.path, entry.workers, entry.deadline) }
  /// ```
  public struct Entry: Sendable, Equatable, Codable {
    /// The boundary's dotted action case path.
    public let path: String
    /// How many workers serve it: 1, or a pool for a `forEach` boundary.
    public let workers: Int
    /// How long a worker may take to answer one request before it is deemed stalled, killed,
    /// and restarted from the host's copy.
    public let deadline: Duration
    /// How long a new worker may take to start, connect and greet the host.
    public let startupDeadline: Duration
    /// The most memory each worker may hold, in bytes (`memory 128MB`); nil: no bound.
    public let memoryLimit: Int?
    /// The share of one core each worker may use, in percent (`cpu 20%`); nil: no bound.
    public let cpuPercent: Int?
    /// The most descriptors each worker may have open (`files 64`); nil: no bound.
    public let fileLimit: Int?
    /// Where the entry is written, for error messages.
    public let line: Int

    /// The deadline of a request when the placement does not set one.
    package static let defaultDeadline = Duration.seconds(2)
    /// The start-up deadline when the placement does not set one.
    package static let defaultStartupDeadline = Duration.seconds(10)

    /// Places `path` in `workers` workers; `line` locates the entry in error messages.
    package init(
      path: String, workers: Int = 1, deadline: Duration = defaultDeadline,
      startupDeadline: Duration = defaultStartupDeadline, memoryLimit: Int? = nil, cpuPercent: Int? = nil,
      fileLimit: Int? = nil, line: Int = 0
    ) {
      self.path = path
      self.workers = workers
      self.deadline = deadline
      self.startupDeadline = startupDeadline
      self.memoryLimit = memoryLimit
      self.cpuPercent = cpuPercent
      self.fileLimit = fileLimit
      self.line = line
    }
  }

  /// The file the placement was read from, for error messages.
  public let file: String
  /// The placed boundaries, in the file's order.
  public let entries: [Entry]
  /// How many idle workers the composition keeps started ahead, shared by the boundaries
  /// that retire their worker with their child (`warm N`).
  public let warmWorkers: Int

  /// The warm pool's size when the placement does not set one.
  package static let defaultWarmWorkers = 2
  /// The largest warm pool a placement may ask for.
  package static let maximumWarmWorkers = 16

  /// Every boundary in the host's process.
  package static let inProcess = Placement(file: "(no placement)", entries: [])

  /// A placement made in code; `file` names it in error messages.
  package init(file: String, entries: [Entry], warmWorkers: Int = defaultWarmWorkers) {
    self.file = file
    self.entries = entries
    self.warmWorkers = warmWorkers
  }

  /// Reads and parses the placement file at `path`.
  ///
  /// ```swift
  /// let placement = try Placement(contentsOf: "placements/guestbook.placement")
  /// ```
  public init(contentsOf path: String) throws(DistributionError) {
    var isDirectory: ObjCBool = false
    guard !path.isEmpty, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw .placement(file: path, line: 0, reason: .noFile)
    }
    guard !isDirectory.boolValue else {
      throw .placement(file: path, line: 0, reason: .isDirectory)
    }
    guard FileManager.default.isReadableFile(atPath: path), let data = FileManager.default.contents(atPath: path) else {
      throw .placement(file: path, line: 0, reason: .unreadable)
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw .placement(file: path, line: 0, reason: .notUTF8)
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
    var defaults: Entry?
    var warm: (size: Int, line: Int)?
    // Lines end in "\n", "\r\n" or "\r" (Swift reads "\r\n" as one character), and only
    // there: an editor shows a U+2028 or a form feed inside a line, so it does not end one.
    let endsLine: (Character) -> Bool = { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
    for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: endsLine).enumerated() {
      let line = index + 1
      let content = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
      let words = content.split(whereSeparator: \.isWhitespace).map(String.init)
      guard let path = words.first else { continue }
      if let size = try Self.warmSize(words, line: line, file: file) {
        if let first = warm { throw .placement(file: file, line: line, reason: .placedTwice(path: path, firstLine: first.line)) }
        warm = (size, line)
        continue
      }
      let entry = try Self.entry(path: path, settings: words.dropFirst(), line: line, file: file)
      if path == Self.everyBoundary {
        if let first = defaults { throw .placement(file: file, line: line, reason: .placedTwice(path: path, firstLine: first.line)) }
        // The settings parsed, so keys and values alternate.
        let keys = words.dropFirst().enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        if let key = keys.first(where: { !Self.limitKeys.contains($0) }) {
          throw .placement(file: file, line: line, reason: .notALimit(key: key))
        }
        defaults = entry
        continue
      }
      if let first = entries.first(where: { $0.path == path }) {
        throw .placement(file: file, line: line, reason: .placedTwice(path: path, firstLine: first.line))
      }
      entries.append(entry)
    }
    self.init(
      file: file, entries: entries.map { $0.limited(by: defaults) }, warmWorkers: warm?.size ?? Self.defaultWarmWorkers)
  }

  /// The size a `warm N` line sets; nil for any other line. `warm` followed by one word that
  /// is not a setting is that line (a boundary named `warm` is placed with settings, or alone).
  private static func warmSize(_ words: [String], line: Int, file: String) throws(DistributionError) -> Int? {
    guard words.count == 2, words[0] == "warm", !settingKeys.contains(words[1]) else { return nil }
    guard let size = whole(Substring(words[1])), (0...maximumWarmWorkers).contains(size) else {
      throw .placement(file: file, line: line, reason: .invalidWarmSize(words[1]))
    }
    return size
  }

  /// The name of the line that sets limits for every placed boundary.
  private static let everyBoundary = "*"
  private static let limitKeys = ["memory", "cpu", "files"]
  private static let settingKeys = ["pool", "deadline", "startup"] + limitKeys

  private static func entry(
    path: String, settings: ArraySlice<String>, line: Int, file: String
  ) throws(DistributionError) -> Entry {
    var workers = 1
    var deadline = Entry.defaultDeadline
    var startup = Entry.defaultStartupDeadline
    var (memory, cpu, files): (Int?, Int?, Int?) = (nil, nil, nil)
    var seen: Set<String> = []
    var words = settings
    while let key = words.popFirst() {
      guard settingKeys.contains(key) else {
        throw .placement(file: file, line: line, reason: .unknownSetting(key: key, path: path))
      }
      guard let value = words.popFirst() else {
        throw .placement(file: file, line: line, reason: .missingValue(key: key))
      }
      guard seen.insert(key).inserted else {
        throw .placement(file: file, line: line, reason: .setTwice(key: key, path: path))
      }
      switch key {
      case "pool":
        guard value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber), let size = Int(value), (1...Self.largestPool).contains(size) else {
          throw .placement(file: file, line: line, reason: .invalidPoolSize(value))
        }
        workers = size
      case "memory":
        guard let bytes = Self.size(value) else {
          throw .placement(file: file, line: line, reason: .invalidLimit(key: key, value: value))
        }
        memory = bytes
      case "cpu":
        guard value.hasSuffix("%"), let percent = Self.whole(value.dropLast()), (1...6_400).contains(percent) else {
          throw .placement(file: file, line: line, reason: .invalidLimit(key: key, value: value))
        }
        cpu = percent
      case "files":
        guard let count = Self.whole(Substring(value)), (16...1_048_576).contains(count) else {
          throw .placement(file: file, line: line, reason: .invalidLimit(key: key, value: value))
        }
        files = count
      default:
        guard let duration = Self.duration(value) else {
          throw .placement(file: file, line: line, reason: .invalidDuration(key: key, value: value))
        }
        if key == "deadline" { deadline = duration } else { startup = duration }
      }
    }
    return Entry(
      path: path, workers: workers, deadline: deadline, startupDeadline: startup, memoryLimit: memory, cpuPercent: cpu,
      fileLimit: files, line: line)
  }

  /// "128MB", "1GB" or "512KB" (binary units: 1MB is 2^20 bytes), from 16 MB to 1 TB.
  private static func size(_ text: String) -> Int? {
    let units: [(suffix: String, shift: Int)] = [("KB", 10), ("MB", 20), ("GB", 30)]
    guard let unit = units.first(where: { text.hasSuffix($0.suffix) }),
      let count = whole(text.dropLast(2)), count <= (1 << 40) >> unit.shift
    else { return nil }
    let bytes = count << unit.shift
    return (16 << 20...1 << 40).contains(bytes) ? bytes : nil
  }

  /// The value of `text` when it is plain decimal digits (at most 9).
  private static func whole(_ text: Substring) -> Int? {
    guard (1...9).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
    return Int(text)
  }

  /// "250ms" or "2s" (or "1.5s"), from 1 ms to 10 minutes: plain decimal digits, as a person
  /// writes them, not every spelling `Double` reads ("+2s", "0x10ms", "1e3ms").
  private static func duration(_ text: String) -> Duration? {
    let milliseconds: Double?
    if text.hasSuffix("ms") {
      milliseconds = decimal(text.dropLast(2))
    } else if text.hasSuffix("s") {
      milliseconds = decimal(text.dropLast()).map { $0 * 1_000 }
    } else {
      milliseconds = nil
    }
    guard let milliseconds, (1...600_000).contains(milliseconds) else { return nil }
    return .milliseconds(Int(milliseconds))
  }

  /// The value of `text` when it is digits, with at most one decimal point between digits.
  private static func decimal(_ text: Substring) -> Double? {
    let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else { return nil }
    return Double(text)
  }

  /// Checks every entry against the app's boundaries (`Composition` does, before it starts a
  /// process): that it names one, takes a pool only on a `forEach`, and crosses only types
  /// that can, its own (`uncodable` names the boundaries whose state or action is not
  /// `Codable`, with the type) and those of the placed boundaries it is inside, through
  /// which its actions travel.
  package func validate(
    against boundaries: [BoundaryDescription], uncodable: [String: String] = [:]
  ) throws(DistributionError) {
    for entry in entries {
      guard let boundary = boundaries.first(where: { $0.path == entry.path }) else {
        throw .placement(file: file, line: entry.line, reason: Self.unknown(entry.path, among: boundaries.map(\.path)))
      }
      if entry.workers > 1, !boundaries.hasChildPerElement(at: boundary.path) {
        throw .placement(
          file: file, line: entry.line, reason: .poolOutsideForEach(path: entry.path, kind: boundary.kind.rawValue))
      }
      if let type = uncodable[entry.path] {
        throw .placement(file: file, line: entry.line, reason: .notCodable(boundary: entry.path, type: type))
      }
      for outer in entries where entry.path.hasPrefix(outer.path + ".") {
        guard let type = uncodable[outer.path] else { continue }
        throw .placement(
          file: file, line: entry.line,
          reason: .insideUncodable(path: entry.path, outer: outer.path, outerLine: outer.line, type: type))
      }
    }
  }

  /// Why `path` is not a boundary of an app with `known`: inside one that is (the deepest),
  /// the boundaries under that one are listed; otherwise every boundary.
  private static func unknown(_ path: String, among known: [String]) -> DistributionError.PlacementProblem {
    guard let parent = known.filter({ path.hasPrefix($0 + ".") }).max(by: { $0.count < $1.count }) else {
      return .unknownBoundary(path: path, known: known)
    }
    return .unknownNestedBoundary(path: path, parent: parent, known: known.filter { $0.hasPrefix(parent + ".") })
  }
}

/// `text` in double quotes, with control characters, quotes and backslashes escaped, so that an
/// error message shows what a file holds (a NUL, a stray carriage return) without printing it.
func quoted(_ text: some StringProtocol) -> String {
  var result = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": result += "\\\""
    case "\\": result += "\\\\"
    case "\t": result += "\\t"
    case "\r": result += "\\r"
    case "\n": result += "\\n"
    case _ where scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format:
      result += "\\u{\(String(scalar.value, radix: 16))}"
    default: result.unicodeScalars.append(scalar)
    }
  }
  return result + "\""
}

extension Placement.Entry {
  /// The entry's limits, as the host enforces them.
  var limits: ResourceLimits { ResourceLimits(memoryBytes: memoryLimit, cpuPercent: cpuPercent, files: fileLimit) }

  /// The entry, with each limit it does not set taken from `defaults` (the `*` line).
  func limited(by defaults: Self?) -> Self {
    guard let defaults else { return self }
    return Self(
      path: path, workers: workers, deadline: deadline, startupDeadline: startupDeadline,
      memoryLimit: memoryLimit ?? defaults.memoryLimit, cpuPercent: cpuPercent ?? defaults.cpuPercent,
      fileLimit: fileLimit ?? defaults.fileLimit, line: line)
  }
}
