import Foundation

/// A place in the source code, as `#fileID` and `#line` give it.
///
/// Operators make one each time a `body` is evaluated, so it keeps the static string and
/// builds a `String` only when a warning is written. It is small, too: the line is kept in the
/// padding after the static string, so that an operator holding a location stays within the
/// size that the compiler copies inline rather than through type metadata.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
  private let staticFileID: StaticString
  private let storedLine: UInt32

  public init(fileID: StaticString, line: UInt) {
    self.staticFileID = fileID
    // No source file has four billion lines.
    self.storedLine = UInt32(truncatingIfNeeded: line)
  }

  /// The line, as `#line` gives it.
  public var line: UInt { UInt(storedLine) }

  /// The file, as `#fileID` gives it: `Module/File.swift`.
  public var fileID: String { "\(staticFileID)" }

  public var description: String { "\"\(fileID):\(line)\"" }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.line == rhs.line && lhs.fileID == rhs.fileID
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(line)
    hasher.combine(fileID)
  }
}

/// A misuse of the library noticed at run time, such as an action sent to a child that is not
/// there. In tests these become failures; elsewhere they are printed to standard error.
public struct RuntimeWarning: Sendable, Equatable, CustomStringConvertible {
  /// What happened and how to fix it.
  public let message: String
  /// The operator or effect that noticed it.
  public let location: SourceLocation

  public var description: String { message }

  /// Who hears runtime warnings in the current task: standard error, unless a test or a host
  /// installed its own with `withRuntimeWarningHandler(_:operation:)`.
  @TaskLocal static var handler = Handler.standardError

  /// Who hears runtime warnings. A handler in a struct: a task-local of closure type, set on a
  /// thread outside any task (a worker's request thread), crashed release builds made with
  /// cross-module optimization.
  package struct Handler: Sendable {
    let hear: @Sendable (RuntimeWarning) -> Void

    /// Writes each warning to standard error: where warnings go outside tests.
    package static let standardError = Handler { warning in
      FileHandle.standardError.write(Data("[Bulkhead] warning: \(warning.message)\n".utf8))
    }

    /// The handler of the current task, for work that outlives the task (a `Send` kept past
    /// its effect, a message that arrives after its effect ended) to report where the task
    /// would have.
    package static var current: Handler { RuntimeWarning.handler }

    /// Reports a warning to this handler.
    package func report(_ message: String, at location: SourceLocation) {
      hear(RuntimeWarning(message: message, location: location))
    }

    /// Runs `operation` with this handler hearing its warnings.
    package func install<Result>(
      isolation: isolated (any Actor)? = #isolation, operation: () async -> Result
    ) async -> Result {
      await RuntimeWarning.$handler.withValue(self, operation: operation)
    }
  }

  package static func report(_ message: String, at location: SourceLocation) {
    handler.report(message, at: location)
  }
}

/// Runs `operation` with `handler` receiving the runtime warnings that it and the effects it
/// starts report.
///
/// ```swift
/// let warnings = WarningLog()
/// withRuntimeWarningHandler({ warnings.append($0) }) { store.send(.detail(.closeButtonTapped)) }
/// ```
public func withRuntimeWarningHandler<Result>(
  _ handler: @escaping @Sendable (RuntimeWarning) -> Void,
  operation: () throws -> Result
) rethrows -> Result {
  try RuntimeWarning.$handler.withValue(RuntimeWarning.Handler(hear: handler), operation: operation)
}

/// Runs asynchronous `operation` with `handler` receiving its runtime warnings.
public func withRuntimeWarningHandler<Result>(
  _ handler: @escaping @Sendable (RuntimeWarning) -> Void,
  isolation: isolated (any Actor)? = #isolation,
  operation: () async throws -> Result
) async rethrows -> Result {
  try await RuntimeWarning.$handler.withValue(RuntimeWarning.Handler(hear: handler), operation: operation)
}
