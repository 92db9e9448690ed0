internal import Transport

/// What can go wrong when boundaries run in other processes. Each case says what and where,
/// and how to fix it when the fix is the user's; `description` is the one place the words
/// for people are made. Thrown by a distributed method, it reaches the caller as itself.
///
/// ```swift
/// do {
///   _ = try Placement(parsing: "counter1 pool 0\n", file: "two.placement")
/// } catch {
///   print(error)  // two.placement:1: …, the line and what is wrong with it
/// }
/// ```
public enum DistributionError: Error, Equatable, Codable, CustomStringConvertible {
  /// A placement that cannot be used, and where (line 0: the file as a whole); nothing was
  /// started.
  case placement(file: String, line: Int, reason: PlacementProblem)
  /// A type that must cross a process boundary cannot be encoded.
  case notCodable(boundary: String, type: String)
  /// A worker sent something the host did not expect, or the other way round.
  case protocolViolation(String)
  /// A worker of `boundary` could not be started or reached.
  case workerUnavailable(boundary: String, reason: WorkerFailure)
  /// There is no executable at `path` to start workers from; `build` builds it.
  case missingExecutable(path: String, build: String)
  /// The worker was asked to serve a boundary its app does not have.
  case unknownBoundary(String, known: [String])
  /// A command line the host or a worker cannot act on: what is wrong, and what to run.
  case usage(String)

  /// The error for a person: what went wrong, where, and the fix when there is one.
  public var description: String {
    switch self {
    case let .placement(file, line, reason):
      // Line 0: about the file as a whole.
      line == 0 ? "\(file.isEmpty ? "(an empty path)" : file): \(reason)" : "\(file):\(line): \(reason)"
    case let .notCodable(boundary, type):
      """
      The boundary "\(boundary)" cannot run in a worker: "\(type)" is not Codable. Make the \
      child's State and Action conform to Codable, or keep the boundary in the host.
      """
    case let .protocolViolation(reason):
      "Protocol violation: \(reason)"
    case let .workerUnavailable(boundary, reason):
      "The worker for \"\(boundary)\" is unavailable: \(reason)"
    case let .missingExecutable(path, build):
      "There is no executable \(path); build it first: \(build)"
    case let .unknownBoundary(path, known):
      "There is no boundary \"\(path)\"\(ClosestName.suggestion(for: path, among: known)); the boundaries are: \(known.joined(separator: ", "))."
    case let .usage(message):
      message
    }
  }
}

extension DistributionError: CodableError {}
