internal import Transport

/// One line a worker wrote to its standard output or standard error, labelled with the
/// boundary it serves.
///
/// ```swift
/// let composition = try Composition(root: App(), placement: placement, command: command, onOutput: {
///   print("[\($0.boundary) \($0.stream.rawValue)] \($0.text)")
/// })
/// ```
public struct WorkerOutput: Sendable, Equatable {
  /// Which of the worker's streams the line came from.
  ///
  /// ```swift
  /// if output.stream == .standardError { print("\(output.boundary): \(output.text)") }
  /// ```
  public enum Stream: String, Sendable {
    case standardOutput = "stdout"
    case standardError = "stderr"
  }

  /// The boundary the worker serves.
  public let boundary: String
  /// The worker's name in the composition: `w` and its boundary's number, then its index in
  /// the boundary's pool (`w0-0`).
  public let worker: String
  /// Whether it came from standard output or standard error.
  public let stream: Stream
  /// The line, without its line break.
  public let text: String

  init(boundary: String, worker: String, stream: Stream, text: String) {
    (self.boundary, self.worker, self.stream, self.text) = (boundary, worker, stream, text)
  }

  /// `line`, as the process that wrote it told it, labelled with `boundary`.
  init(_ line: WorkerProcess.OutputLine, boundary: String) {
    self.init(
      boundary: boundary, worker: line.worker, stream: line.stream == .standardOutput ? .standardOutput : .standardError,
      text: line.text)
  }
}
