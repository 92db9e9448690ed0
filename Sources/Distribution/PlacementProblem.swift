extension DistributionError {
  /// What is wrong with a placement (`DistributionError.placement`), with the words and
  /// numbers the file holds as fields. Words from the file are quoted with control characters
  /// escaped, so a message shows what the file holds without printing it.
  ///
  /// ```swift
  /// catch DistributionError.placement(_, let line, .placedTwice(let path, let first)) { … }
  /// ```
  public enum PlacementProblem: Equatable, Codable, Sendable, CustomStringConvertible {
    /// There is no placement file at the path.
    case noFile
    /// The path names a directory.
    case isDirectory
    /// The file cannot be read.
    case unreadable
    /// The file is not UTF-8 text.
    case notUTF8
    /// `path` is placed a second time; the first was on line `firstLine`.
    case placedTwice(path: String, firstLine: Int)
    /// `key` after `path` is not a setting.
    case unknownSetting(key: String, path: String)
    /// The setting `key` has no value.
    case missingValue(key: String)
    /// The setting `key` is given twice for `path`.
    case setTwice(key: String, path: String)
    /// A pool size that is not a number from 1 to `Placement.largestPool`.
    case invalidPoolSize(String)
    /// A warm pool size (`warm N`) that is not a number from 0 to 16.
    case invalidWarmSize(String)
    /// The setting `key` has a value that is not a duration from 1 ms to 600 s.
    case invalidDuration(key: String, value: String)
    /// The limit `key` (`memory`, `cpu`, `files`) has a value out of range or in no unit it takes.
    case invalidLimit(key: String, value: String)
    /// The `*` line, which sets limits for every boundary, sets `key`, which is not a limit.
    case notALimit(key: String)
    /// `path`'s memory limit, `bytes`, is below `floor`, the least a worker runs in under
    /// `mechanism` (resource limits count every thread's stack).
    case memoryBelowFloor(path: String, bytes: Int, floor: Int, mechanism: String)
    /// The app has no boundary `path`; it has `known`.
    case unknownBoundary(path: String, known: [String])
    /// `path`, a boundary of kind `kind`, takes no pool: only forEach boundaries and those inside
    /// their elements do.
    case poolOutsideForEach(path: String, kind: String)
    /// `path` is under `parent`, a boundary of the app, which has no boundary `path`; it
    /// has `known` under `parent`.
    case unknownNestedBoundary(path: String, parent: String, known: [String])
    /// `path` is inside `outer`, placed on line `outerLine`, whose `type` is not Codable: the
    /// actions of `path` would cross in `outer`'s, so `path` cannot be placed.
    case insideUncodable(path: String, outer: String, outerLine: Int, type: String)
    /// The boundary's `type` is not Codable, so it cannot cross a process boundary.
    case notCodable(boundary: String, type: String)
    /// The host's workers, `workers` of them, need about `needed` descriptors in the host, and
    /// it may open `limit` (its hard `RLIMIT_NOFILE`, which it cannot raise itself).
    case tooFewDescriptors(workers: Int, needed: Int, limit: Int)

    public var description: String {
      switch self {
      case .noFile: "there is no placement file at this path"
      case .isDirectory: "this is a directory, not a placement file"
      case .unreadable: "the placement file cannot be read (check its permissions)"
      case .notUTF8: "the placement file is not UTF-8 text"
      case let .placedTwice(path, firstLine): "\(quoted(path)) is placed twice (first on line \(firstLine))"
      case let .unknownSetting(key, path):
        "unknown setting \(quoted(key)) after \(quoted(path)); expected \"pool N\", \"deadline D\", \"startup D\", \"memory SIZE\", \"cpu PERCENT%\" or \"files N\""
      case let .missingValue(key): "\(quoted(key)) needs a value"
      case let .setTwice(key, path): "\(quoted(key)) is set twice for \(quoted(path))"
      case let .invalidPoolSize(value): "a pool size must be a number from 1 to \(Placement.largestPool), not \(quoted(value))"
      case let .invalidWarmSize(value):
        "\"warm N\" sets how many idle workers are kept ahead, a number from 0 to 16, not \(quoted(value))"
      case let .invalidDuration(key, value):
        "\(quoted(key)) must be a duration from 1ms to 600s such as 250ms or 2s, not \(quoted(value))"
      case let .invalidLimit(key, value):
        switch key {
        case "memory": "memory must be a size from 16MB to 1TB such as 128MB or 1GB, not \(quoted(value))"
        case "cpu": "cpu must be a percentage of one core from 1% to 6400% such as 20%, not \(quoted(value))"
        default: "files must be a number of descriptors from 16 to 1048576, not \(quoted(value))"
        }
      case let .notALimit(key):
        "\"*\" sets limits for every boundary: \"memory SIZE\", \"cpu PERCENT%\" or \"files N\", not \(quoted(key))"
      case let .memoryBelowFloor(path, bytes, floor, mechanism):
        "the memory limit of \(quoted(path)), \(ResourceLimit.size(bytes)), is below \(ResourceLimit.size(floor)), the least a worker runs in where memory is bounded by \(mechanism) (this machine has no memory cgroup the host may use): it counts each thread's reserved stack, 8 MB, and a Swift worker runs several threads"
      case let .unknownBoundary(path, known):
        "this app has no boundary \(quoted(path)); its boundaries are: \(known.joined(separator: ", "))"
      case let .poolOutsideForEach(path, kind): "\(quoted(path)) is a \(kind) boundary; only forEach boundaries and those inside their elements take a pool"
      case let .unknownNestedBoundary(path, parent, known):
        known.isEmpty
          ? "this app has no boundary \(quoted(path)); \(quoted(parent)) has no boundaries inside it"
          : "this app has no boundary \(quoted(path)); the boundaries inside \(quoted(parent)) are: \(known.joined(separator: ", "))"
      case let .insideUncodable(path, outer, outerLine, type):
        "\(quoted(path)) is inside \(quoted(outer)) (line \(outerLine)), whose \(type) is not Codable: "
          + "its actions would cross in \(quoted(outer))'s, so it cannot be placed in a worker"
      case let .notCodable(boundary, type): DistributionError.notCodable(boundary: boundary, type: type).description
      case let .tooFewDescriptors(workers, needed, limit):
        """
        its \(workers) workers need about \(needed) descriptors in the host, which may open \(limit) \
        (ulimit -Hn); raise the limit or make the pools smaller
        """
      }
    }
  }
}
