import CSystem
import Foundation
import Synchronization

/// A worker process started by the host, with pipes on its standard streams.
///
/// The worker learns its socket path and a per-launch secret from its standard input (never
/// from its arguments or environment, which other users can read), and exits when that pipe
/// closes, that is when the host dies. Its output comes back line by line, labelled with
/// its name.
///
/// ```swift
/// let worker = try WorkerProcess(
///   name: "counter1", executable: workerURL, socketPath: path, secret: secret
/// ) { line in print("[\(line.worker)] \(line.text)") }
/// ```
public final class WorkerProcess: Sendable {
  /// One line a worker wrote to standard output or standard error.
  public struct OutputLine: Sendable, Equatable {
    public enum Stream: String, Sendable { case standardOutput = "stdout", standardError = "stderr" }
    public let worker: String
    public let stream: Stream
    public let text: String
  }

  /// How a worker ended.
  public enum Exit: Sendable, Equatable, CustomStringConvertible {
    case exited(status: Int32)
    case signalled(signal: Int32)

    public var description: String {
      switch self {
      case let .exited(status): "exited with status \(status)"
      case let .signalled(signal): "killed by signal \(signal)"
      }
    }
  }

  public let name: String
  public let pid: pid_t
  private let process: Process
  private let input: FileHandle
  private let exit = ExitRecord()

  /// Starts `executable` and hands it `socketPath` and `secret` on standard input.
  public init(
    name: String, executable: URL, arguments: [String] = [], socketPath: String,
    secret: LaunchSecret, output: @escaping @Sendable (OutputLine) -> Void
  ) throws {
    self.name = name
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let standardInput = Pipe()
    let standardOutput = Pipe()
    let standardError = Pipe()
    process.standardInput = standardInput
    process.standardOutput = standardOutput
    process.standardError = standardError
    self.process = process
    self.input = standardInput.fileHandleForWriting
    process.terminationHandler = { [exit] process in
      exit.record(
        process.terminationReason == .uncaughtSignal
          ? .signalled(signal: process.terminationStatus)
          : .exited(status: process.terminationStatus))
    }
    try process.run()
    for (pipe, stream) in [(standardOutput, OutputLine.Stream.standardOutput), (standardError, .standardError)] {
      Self.forwardLines(of: pipe.fileHandleForReading, as: stream, from: name, to: output)
    }
    self.pid = process.processIdentifier
    try input.write(contentsOf: Data("\(socketPath)\n\(secret.text)\n".utf8))
  }

  /// Reads `handle` on a thread of its own until end of file, handing on whole lines. Not
  /// `readabilityHandler`: a dispatch source whose pipe closed under it has crashed
  /// libdispatch's event loop in this process.
  private static func forwardLines(
    of handle: FileHandle, as stream: OutputLine.Stream, from name: String,
    to output: @escaping @Sendable (OutputLine) -> Void
  ) {
    let descriptor = handle.fileDescriptor
    let lines = LineSplitter()
    DetachedThread.run {
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        let data = count > 0 ? Data(buffer[0..<count]) : Data()
        for text in lines.append(data) { output(OutputLine(worker: name, stream: stream, text: text)) }
        if count <= 0 { break }
      }
      // The handle closes its descriptor only now that nobody reads it.
      withExtendedLifetime(handle) {}
    }
  }

  /// Whether the worker has not been reaped yet. Until it is, its pid cannot name another
  /// process, so a signal sent while this is true reaches the worker or nothing.
  public var isRunning: Bool { process.isRunning }

  /// Asks the worker to stop (SIGTERM).
  public func terminate() { if isRunning { _ = Foundation.kill(pid, SIGTERM) } }

  /// Stops the worker at once (SIGKILL).
  public func kill() { if isRunning { _ = Foundation.kill(pid, SIGKILL) } }

  /// Closes the worker's standard input, which tells it the host is gone.
  public func closeInput() { try? input.close() }

  /// Waits until the worker has exited, and says how.
  public func waitForExit() async -> Exit {
    await exit.wait()
  }
}

/// How a process ended, once it has, and who is waiting to hear it.
private final class ExitRecord: Sendable {
  private let state = Mutex<(exit: WorkerProcess.Exit?, waiters: [CheckedContinuation<WorkerProcess.Exit, Never>])>((nil, []))

  func record(_ exit: WorkerProcess.Exit) {
    let waiters = state.withLock { state in
      state.exit = exit
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume(returning: exit) }
  }

  func wait() async -> WorkerProcess.Exit {
    await withCheckedContinuation { continuation in
      let exit = state.withLock { state -> WorkerProcess.Exit? in
        if state.exit == nil { state.waiters.append(continuation) }
        return state.exit
      }
      if let exit { continuation.resume(returning: exit) }
    }
  }
}

/// A random secret made for one launch, which the worker proves it knows.
public struct LaunchSecret: Sendable, Equatable {
  public let text: String

  public init(text: String) { self.text = text }

  /// 32 random bytes, as hexadecimal.
  public static func random() -> LaunchSecret {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return LaunchSecret(text: bytes.map { String(format: "%02x", $0) }.joined())
  }

  /// Compares in time independent of where the first difference is.
  func matches(_ bytes: [UInt8]) -> Bool {
    let expected = Array(text.utf8)
    guard bytes.count == expected.count else { return false }
    return zip(bytes, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
  }
}

/// Splits a byte stream into lines, keeping an unfinished last line for later.
private final class LineSplitter: Sendable {
  private let pending = Mutex(Data())

  func append(_ data: Data) -> [String] {
    pending.withLock { pending in
      if data.isEmpty {
        defer { pending = Data() }
        return pending.isEmpty ? [] : [String(decoding: pending, as: UTF8.self)]
      }
      pending.append(data)
      var lines: [String] = []
      while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
        pending = Data(pending[(newline + 1)...])
      }
      return lines
    }
  }
}
