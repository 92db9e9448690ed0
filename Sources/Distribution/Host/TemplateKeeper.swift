import Foundation
import Synchronization
internal import Transport

/// A composition's worker template (its "zygote"): started when the first worker is needed,
/// started again when it has died, and given up after repeated failures, after which every
/// worker is spawned. Whatever happens to the template, a worker still starts: a fork that
/// fails is reported and the worker spawned instead.
///
/// Its output and what happens to it come out as lines of the worker named `zygote`.
final class TemplateKeeper: Sendable {
  private struct State {
    var template: WorkerTemplate?
    /// Failures since the last worker the template forked.
    var failures = 0
    var isClosed = false
  }

  /// Failures in a row after which the composition spawns its workers.
  static let maximumFailures = 3
  /// The template's name in its socket and output lines.
  static let name = "zygote"
  /// The environment variable that turns templates off: `BULKHEAD_ZYGOTE=off`.
  static let switchVariable = "BULKHEAD_ZYGOTE"

  private let state = Mutex(State())
  /// Held while a worker is forked (or the template started for it): requests go one at a time.
  private let forking = Mutex(())
  private let executable: URL
  private let arguments: [String]
  private let directory: SocketDirectory
  private let roster: WorkerRoster
  private let output: @Sendable (WorkerProcess.OutputLine) -> Void

  /// A keeper for `command`'s template; nil when the command has none, or the environment
  /// turns templates off.
  init?(
    command: WorkerCommand, directory: SocketDirectory, roster: WorkerRoster,
    output: @escaping @Sendable (WorkerProcess.OutputLine) -> Void
  ) {
    guard let arguments = command.templateArguments, command.servesInProcess == nil,
      ProcessInfo.processInfo.environment[Self.switchVariable] != "off"
    else { return nil }
    executable = command.executable
    self.arguments = arguments
    self.directory = directory
    self.roster = roster
    self.output = output
  }

  /// A new worker named `name` for `boundary` (with `brief` in its launch), forked from the
  /// template and handed `connections`; nil when it must be spawned instead (the template
  /// could not start or fork, and said why). One worker at a time: a fork waits at most
  /// `WorkerTemplate.forkDeadline`. `close()` never waits for it.
  func fork(
    name: String, boundary: String, handing connections: HandedConnections, brief: String, within budget: Duration,
    limits: LimitRequest?, output workerOutput: @escaping @Sendable (WorkerProcess.OutputLine) -> Void
  ) -> WorkerProcess? {
    forking.withLock { _ in
      guard let template = running(within: budget) else { return nil }
      do {
        let worker = try WorkerProcess(
          name: name, forkedBy: template, request: boundary, handing: connections, brief: brief, limits: limits,
          output: workerOutput)
        state.withLock { $0.failures = 0 }
        return worker
      } catch {
        template.process.kill()
        template.close()
        state.withLock { state in
          if state.template === template { state.template = nil }
          fail(&state, "the worker template (pid \(template.process.pid)) could not fork a worker for \(boundary) (\(error)); it is stopped")
        }
        return nil
      }
    }
  }

  /// The running template, started now if there is none; nil when templates are given up
  /// or closed, or one could not start (said why).
  private func running(within budget: Duration) -> WorkerTemplate? {
    let current = state.withLock { state -> WorkerTemplate?? in
      guard !state.isClosed, state.failures < Self.maximumFailures else { return .some(nil) }
      if let template = state.template, !template.process.isRunning {
        say("the worker template (pid \(template.process.pid)) has exited; starting another")
        template.close()
        state.template = nil
      }
      return state.template.map { .some($0) } ?? .none
    }
    if let current { return current }
    let template: WorkerTemplate
    do {
      template = try WorkerTemplate(
        name: Self.name, executable: executable, arguments: arguments, directory: directory, within: budget,
        output: output)
    } catch {
      state.withLock { fail(&$0, "the worker template could not start (\(error))") }
      return nil
    }
    let isKept = roster.admit(template.process) && state.withLock { state in
      guard !state.isClosed else { return false }
      state.template = template
      return true
    }
    guard isKept else {
      template.close()
      return nil
    }
    return template
  }

  /// Counts a failure and says what happens next.
  private func fail(_ state: inout State, _ reason: String) {
    state.failures += 1
    let next =
      state.failures < Self.maximumFailures
      ? "this worker is spawned, and the next one asks a new template"
      : "\(state.failures) failures in a row: every worker of this composition is spawned from now on"
    say("\(reason); \(next)")
  }

  private func say(_ text: String) {
    output(WorkerProcess.OutputLine(worker: Self.name, stream: .standardError, text: text))
  }

  /// The pid of the running template; nil before the first worker, or once it has exited.
  var pid: Int32? {
    state.withLock { state in state.template.flatMap { $0.process.isRunning ? $0.process.pid : nil } }
  }

  /// Lets the template go at shutdown (the roster sees its process out) and starts no other.
  func close() {
    let template = state.withLock { state in
      state.isClosed = true
      defer { state.template = nil }
      return state.template
    }
    template?.close()
  }
}
