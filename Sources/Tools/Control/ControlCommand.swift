import Bulkhead
import BulkheadDistribution
import Foundation
internal import Transport

/// Carries out a control command line (`--control APP VERB ...`) against the detached
/// composition of APP, and exits: 0 when done, 64 with a one-line error on standard error
/// when not.
///
/// ```swift
/// await ControlCommand.run(try ControlRequest(parsing: arguments, program: "host")!, terminal: terminal)
/// ```
@MainActor
enum ControlCommand {
  /// How long `down` waits for the host to exit: its shutdown takes about two seconds at most.
  static let downDeadline = Duration.seconds(10)
  /// How often `down` looks whether the host has exited, as it is not this process's child.
  static let exitCheckPeriod = Duration.milliseconds(20)

  static func run(_ request: ControlRequest, terminal: HostTerminal) async -> Never {
    do {
      switch (request.app, request.verb) {
      case (nil, let verb):
        try await CompositionsOverview.run(live: verb == .top, terminal: terminal)
      case let (app?, .up(options)):
        try UpLauncher(app: app, hostOptions: options).launch(terminal: terminal)
      case let (app?, .logs(boundary, follow)):
        try await LogsCommand(app: app, boundary: boundary, follow: follow).run(terminal: terminal)
      case let (app?, .top):
        try await TopView(target: try ControlTarget(app: app)).run()
      case let (app?, verb):
        try await control(app, verb, terminal: terminal)
      }
    } catch {
      terminal.fail("\(error)")
    }
    exit(0)
  }

  /// The commands that call the control endpoint.
  private static func control(_ app: String, _ verb: ControlRequest.Verb, terminal: HostTerminal) async throws {
    let target = try ControlTarget(app: app)
    let (system, control) = try target.connect()
    defer { system.close() }
    switch verb {
    case .ps:
      let snapshot = try await target.calling { try await control.snapshot() }
      for line in ProcessTable(app: app, run: target.run, snapshot: snapshot).lines { terminal.say(line) }
    case let .signal(signal, boundary, index):
      let snapshot = try await target.calling { try await control.snapshot() }
      if !snapshot.boundaries.contains(where: { $0.boundary == boundary }),
        let said = try InnerWorkerSignal(signal: signal, boundary: boundary, index: index).send(below: snapshot)
      {
        return terminal.say("\(app): \(said)")
      }
      let delivery = try await target.calling { try await control.send(signal, boundary: boundary, index: index) }
      let name = "SIG\(String(describing: signal).uppercased())"
      switch (delivery, signal) {
      case (.delivered, _):
        terminal.say("\(app): sent \(name) to worker \(index) of \(boundary)")
      case (.workerHadExited, .kill):
        terminal.say("\(app): worker \(index) of \(boundary) had already exited; its successor is starting")
      case (.workerHadExited, _):
        terminal.say(
          "\(app): worker \(index) of \(boundary) had already exited, so no \(name) was sent; the next action starts its successor")
      }
    case let .slow(boundary, milliseconds):
      try await target.calling { try await control.slow(boundary: boundary, milliseconds: milliseconds) }
      terminal.say(
        milliseconds == 0
          ? "\(app): the replies of \(boundary) are no longer held"
          : "\(app): every reply of \(boundary) is held \(milliseconds) ms")
    case let .move(boundary, residence):
      let took = try await target.calling { try await control.move(boundary: boundary, to: residence) }
      terminal.say("\(app): moved \(boundary) to the \(residence) in \(TimingsTable.duration(UInt64(took)))")
    case .down:
      try await down(target, control, terminal: terminal)
    case let .send(source, times):
      let actions = try source.actions()
      let steps: [Wire.SentAction]
      do {
        let texts = actions.map(\.text)
        steps = try await target.calling { try await control.send(actions: Array(repeating: texts, count: times).flatMap { $0 }) }
      } catch let ControlError.actionUnreadable(index, message) where index >= 0 {
        // The host read none of them: the first unreadable one is in the first round.
        let action = actions[index % actions.count]
        throw ControlError.actionUnreadable(
          index: index, message: "\(action.place.map { "\($0): " } ?? "")the action does not read \(message)")
      }
      // Repeated, only the last is shown: what a hundred clicks came to.
      if times > 1 { terminal.say("sent \(steps.count) actions; the last:") }
      for step in times > 1 ? Array(steps.suffix(1)) : steps {
        terminal.say("→ \(step.action)")
        terminal.say("state: \(step.state)")
        if step.effectsRunning {
          terminal.say("  (its effects go on: \"./compose.sh state \(app)\" shows what they bring)")
        }
      }
    case let .state(boundary, json):
      terminal.say(try await target.calling { try await control.state(boundary: boundary, json: json) })
    case .up, .logs, .top:
      break
    }
  }

  /// Asks the host to go down and waits until it has exited.
  private static func down(_ target: ControlTarget, _ control: CompositionControl, terminal: HostTerminal) async throws {
    do {
      try await control.down()
    } catch RemoteCallError.peerDisconnected {
      // The host may close the connection as it goes down, before its answer is out.
    }
    let deadline = ContinuousClock.now + downDeadline
    while ProcessState(of: target.run.pid)?.isAlive == true {
      guard ContinuousClock.now < deadline else {
        throw ControlError.stillRunning(app: target.app, pid: target.run.pid, after: downDeadline)
      }
      try await Task.sleep(for: exitCheckPeriod)
    }
    terminal.say("\(target.app) is down")
  }
}
