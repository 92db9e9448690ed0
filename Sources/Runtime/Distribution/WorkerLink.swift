import Foundation
import Synchronization
import Transport

/// How a host starts a worker for a boundary: the executable, and its arguments for each
/// boundary path. The socket path and the launch secret go through the worker's stdin.
///
/// ```swift
/// WorkerCommand(executable: URL(fileURLWithPath: ".build/release/child-worker")) { boundary in
///   ["--app", "two-counters", "--boundary", boundary]
/// }
/// ```
public struct WorkerCommand: Sendable {
  public let executable: URL
  public let arguments: @Sendable (_ boundary: String) -> [String]

  public init(executable: URL, arguments: @escaping @Sendable (_ boundary: String) -> [String]) {
    self.executable = executable
    self.arguments = arguments
  }
}

/// One running worker as the host holds it: its process, the control connection for
/// synchronous requests, and the effects connection.
final class WorkerLink: Sendable {
  let process: WorkerProcess
  let effects: HostEffects
  private let control: Locked<FramedConnection>

  var pid: Int32 { process.pid }

  /// Starts a worker for `boundary` and waits until it has proved itself on both connections
  /// and greeted the host as a worker for `expected`.
  init(
    boundary: String, expected: Wire.Greeting, name: String, command: WorkerCommand,
    directory: SocketDirectory,
    output: @escaping @Sendable (WorkerProcess.OutputLine) -> Void,
    onClose: @escaping @Sendable (_ pid: Int32) -> Void,
    onLost: @escaping @Sendable (_ effects: Int) -> Void
  ) throws {
    let secret = LaunchSecret.random()
    let listener = try UnixListener(path: directory.path(for: name))
    defer { listener.close() }
    let process = try WorkerProcess(
      name: name, executable: command.executable, arguments: command.arguments(boundary),
      socketPath: listener.path, secret: secret, output: output)
    do {
      let control = try Self.accept(on: listener, secret: secret, pid: process.pid)
      let effects = try Self.accept(on: listener, secret: secret, pid: process.pid)
      try Self.check(greetingOn: control, from: name, expected: expected, command: command)
      self.process = process
      self.control = Locked(control)
      let pid = process.pid
      self.effects = HostEffects(effects, onClose: { onClose(pid) }, onLost: onLost)
    } catch {
      process.kill()
      throw error
    }
  }

  private static func accept(
    on listener: UnixListener, secret: LaunchSecret, pid: Int32
  ) throws -> FramedConnection {
    let connection = FramedConnection(try listener.accept(timeout: 10_000))
    _ = try Handshake.verify(connection, secret: secret, expectedPID: pid)
    return connection
  }

  /// Refuses a worker that does not say it serves `expected`: one built from other code.
  private static func check(
    greetingOn control: FramedConnection, from name: String, expected: Wire.Greeting, command: WorkerCommand
  ) throws {
    let rebuild = "rebuild \(command.executable.lastPathComponent) with the host (\"./compose.sh run\" builds both)"
    let frame: Frame?
    do {
      frame = try control.receive(within: 10_000)
    } catch {
      throw DistributionError.workerUnavailable(
        boundary: expected.boundary, reason: "worker \(name) did not greet the host (\(error)); \(rebuild)")
    }
    guard let frame else {
      throw DistributionError.workerUnavailable(
        boundary: expected.boundary, reason: "worker \(name) closed its connection before it greeted the host")
    }
    let greeting: Wire.Greeting
    do {
      greeting = try Wire.decode(Wire.Greeting.self, from: frame)
    } catch {
      throw DistributionError.workerUnavailable(
        boundary: expected.boundary, reason: "worker \(name) sent no greeting the host understands (\(error)); \(rebuild)")
    }
    guard greeting == expected else {
      throw DistributionError.workerUnavailable(
        boundary: expected.boundary,
        reason: "worker \(name) serves \(greeting), the host expects \(expected); \(rebuild)")
    }
  }

  /// Sends `request` and waits for the reply on the calling thread: no thread hop on the path
  /// of an action. Returns the reply and the payload bytes sent and received.
  func request(_ request: Wire.Request) throws -> (reply: Wire.Reply, sent: Int, received: Int) {
    let frame = Wire.frame(request)
    return try control.withLock { control in
      try control.send(frame)
      guard let reply = try control.receive() else {
        throw DistributionError.workerUnavailable(
          boundary: process.name, reason: "the worker closed its connection")
      }
      return (
        try Wire.decode(Wire.Reply.self, from: reply),
        frame.payload.count, reply.payload.count
      )
    }
  }

  /// Lets the worker go without waiting for it: its effects end without being reported lost,
  /// and it exits on its own when its input closes. A later `stop()` makes sure it did.
  func retire() {
    effects.retire()
    control.withLock { $0.socket.shutdown() }
    process.closeInput()
  }

  /// Whether the worker's process has exited.
  var hasExited: Bool { ProcessWatch.waitForExit(of: process.pid, milliseconds: 0) }

  /// Stops the worker: closes its connections and stdin, waits briefly for it to exit, and
  /// kills it if it does not.
  func stop() {
    control.withLock { $0.socket.shutdown() }
    effects.close()
    process.closeInput()
    if !ProcessWatch.waitForExit(of: process.pid, milliseconds: 2_000) { process.kill() }
  }
}
