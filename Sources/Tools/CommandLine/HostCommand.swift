import Bulkhead
import BulkheadDistribution
import Foundation

/// The command line of an app built with Bulkhead: runs this process as the host of one of
/// its apps, or, when a host started it as a worker, serves one boundary for that host. An
/// app's `main.swift` is one line, and its executable is host and workers at once:
///
/// ```swift
/// // Sources/guestbook/main.swift, beside the file that declares `ScriptedApp.guestbook`
/// import BulkheadTools
///
/// await HostCommand.main(apps: [.guestbook])
/// ```
///
/// As a host it takes:
///
///     APP --list                           the apps, one per line with a summary
///     APP --boundaries NAME                the boundaries of app NAME that a placement can name
///     APP --app NAME [--placement FILE] [--hold | --up] [--record FILE] [--trace FILE]
///     APP --replay FILE [--placement FILE]   runs a recording again; see `Replayer`
///     APP --study NAME [--report FILE] [--placement FILE]
///                                          the app's script with each boundary in the host, in a
///                                          worker (under the limits FILE sets it), and killed and
///                                          stalled there (`Study`)
///     APP --control NAME up | ps | top | logs | kill | stop | cont | slow | down ...
///
/// and prints its pid, each placed boundary with its workers' pids, each action of the script
/// with the state after it, the workers' events and their output labelled by boundary. With
/// `--hold` it stays up after the script, showing the states effects bring. Ctrl-C, SIGTERM
/// and SIGHUP stop the workers and remove the sockets; the host then exits with 128 plus the
/// signal's number, as a shell reports a death by that signal. It prints a table of each
/// boundary's timings at the end, on Ctrl-C, and on SIGUSR1; `--trace FILE` writes a Chrome
/// trace of the crossings to FILE. `--up` runs the app detached, reachable from other
/// terminals; `--control` reaches it (`ControlRequest` lists the commands).
public enum HostCommand {
  /// Runs the command line in `CommandLine.arguments` and exits.
  ///
  /// - Parameters:
  ///   - apps: the apps `--app` can name; a worker serves a boundary of one of them.
  ///   - workerExecutable: the name of a worker-only executable built beside this one (such
  ///     as `child-worker`, whose `main` calls `BoundaryWorker.main(apps:)`); nil, the
  ///     default, starts this executable again as each worker.
  @MainActor
  public static func main(apps: [ScriptedApp], workerExecutable: String? = nil) async -> Never {
    let arguments = Array(CommandLine.arguments.dropFirst())
    let terminal = HostTerminal.ofThisProcess()
    do {
      if let worker = try WorkerCommand.Role(parsing: arguments) {
        BoundaryWorker.main(apps: apps, role: worker, terminal: terminal)
      }
      if let template = try WorkerCommand.TemplateRole(parsing: arguments) {
        BoundaryWorker.serveAsTemplate(apps: apps, role: template, terminal: terminal)
      }
      if let control = try ControlRequest(
        parsing: arguments, program: terminal.program, frontDoor: terminal.isBehindFrontDoor)
      {
        await ControlCommand.run(control, terminal: terminal)
      }
      let request = try HostRequest(parsing: arguments, program: terminal.program)
      await run(request, apps: apps, workerExecutable: workerExecutable, terminal: terminal)
    } catch {
      terminal.fail("\(error)")
    }
  }

  @MainActor
  private static func run(
    _ request: HostRequest, apps: [ScriptedApp], workerExecutable: String?, terminal: HostTerminal
  ) async -> Never {
    func app(named name: String) -> ScriptedApp {
      guard let app = apps.named(name) else {
        let names = apps.map(\.name)
        let list = terminal.isBehindFrontDoor ? "./compose.sh list" : "\(terminal.program) --list"
        terminal.fail(
          "there is no app \"\(name)\"\(ClosestName.suggestion(for: name, among: names)); \"\(list)\" lists them: "
            + names.joined(separator: ", "))
      }
      return app
    }
    switch request {
    case .identify:
      terminal.say("bulkhead host")
      exit(0)
    case .help:
      terminal.say(HostRequest.usage(program: terminal.program))
      exit(0)
    case .list:
      for app in apps { terminal.say("\(app.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(app.summary)") }
      exit(0)
    case let .boundaries(name):
      let boundaries = app(named: name).boundaries
      if boundaries.isEmpty { terminal.say("\(name) has no boundaries: none of its reducers is a Scope, ifLet or forEach child") }
      for boundary in boundaries { terminal.say("\(boundary)") }
      exit(0)
    case let .study(name, report, placementFile, faultAt, live):
      let selected = app(named: name)
      do {
        let command =
          try workerExecutable.map { executable throws(DistributionError) in
            try WorkerCommand.executable(named: executable, app: name)
          } ?? .thisExecutable(app: name)
        let limits = try placementFile.map { file throws(DistributionError) in try Placement(contentsOf: file) }
        try await StudySession(app: selected, command: command, limits: limits, terminal: terminal, faultAt: faultAt, live: live)
          .run(report: report)
      } catch {
        terminal.fail("\(error)")
      }
      exit(0)
    case let .run(name, placementFile, hold, record, trace):
      await host(app(named: name), placementFile, workerExecutable: workerExecutable, terminal: terminal) {
        let session = try HostSession(app: $0, placement: $1, command: $2, terminal: terminal, trace: trace)
        if let record {
          try await session.record(into: record, hold: hold)
        } else {
          await session.run(hold: hold)
        }
      }
    case let .up(name, placementFile):
      await host(app(named: name), placementFile, workerExecutable: workerExecutable, terminal: terminal) {
        try await DetachedHost(app: $0, placement: $1, command: $2).run(terminal: terminal)
      }
    case let .replay(file, placementFile):
      await replay(file, placementFile: placementFile, apps: apps, workerExecutable: workerExecutable, terminal: terminal)
    }
  }

  /// Runs `selected` with the placement in `placementFile` (none: every boundary in the host)
  /// through `body`, and exits.
  @MainActor
  private static func host(
    _ selected: ScriptedApp, _ placementFile: String?, workerExecutable: String?, terminal: HostTerminal,
    body: (ScriptedApp, Placement, WorkerCommand) async throws -> Void
  ) async -> Never {
    do {
      let (placement, command) = try placed(selected, placementFile, workerExecutable: workerExecutable)
      try await body(selected, placement, command)
    } catch {
      terminal.fail("\(error)")
    }
    exit(0)
  }

  /// A session of `app` with the boundaries `placementFile` places (none: all in the host).
  @MainActor
  static func session(
    of app: ScriptedApp, placementFile: String?, workerExecutable: String?, terminal: HostTerminal
  ) throws -> HostSession {
    let (placement, command) = try placed(app, placementFile, workerExecutable: workerExecutable)
    return try HostSession(app: app, placement: placement, command: command, terminal: terminal)
  }

  /// The placement in `placementFile` (none: every boundary in the host) and the command that
  /// starts `app`'s workers.
  private static func placed(
    _ app: ScriptedApp, _ placementFile: String?, workerExecutable: String?
  ) throws(DistributionError) -> (Placement, WorkerCommand) {
    let placement = try placementFile.map { path throws(DistributionError) in try Placement(contentsOf: path) } ?? .inProcess
    // A worker executable must be there only when a worker will start.
    let command =
      try workerExecutable.map { executable throws(DistributionError) in
        placement.entries.isEmpty
          ? WorkerCommand.thisExecutable(app: app.name)
          : try WorkerCommand.executable(named: executable, app: app.name)
      } ?? .thisExecutable(app: app.name)
    return (placement, command)
  }
}

/// What the host's command line asks for.
enum HostRequest: Equatable {
  case help
  case list
  case boundaries(app: String)
  case run(app: String, placement: String?, hold: Bool, record: String? = nil, trace: String? = nil)
  /// `--up`: runs the app detached, reachable through its control socket (`./compose.sh up`).
  case up(app: String, placement: String?)
  /// `--replay FILE`: runs a recording again and compares each step.
  case replay(file: String, placement: String?)
  /// `--study NAME`: the app's script in each placement and under faults (`Study`), each
  /// boundary under the limits `placement` gives it.
  /// `--fault-at N` lands the faults on action N of one pass of the script; `--live` compares
  /// the placements by moving boundaries in one running composition.
  case study(app: String, report: String?, placement: String? = nil, faultAt: Int? = nil, live: Bool = false)
  /// `--bulkhead-host`: says that this executable is a Bulkhead host, for `compose.sh`.
  case identify

  static func usage(program: String) -> String {
    "usage: \(program) --list | --boundaries NAME | --app NAME [--placement FILE] [--hold | --up] [--record FILE] [--trace FILE] | --replay FILE [--placement FILE] | --study NAME [--report FILE] [--placement FILE] [--fault-at N] [--live] | --control APP COMMAND"
  }

  /// Reads `arguments`, options in any order; the error names what is wrong, then the usage.
  init(parsing arguments: [String], program: String) throws(DistributionError) {
    func wrong(_ problem: String) -> DistributionError {
      .usage("\(problem)\n\(Self.usage(program: program))")
    }
    var options: [String: String] = [:]
    var flags: Set<String> = []
    var rest = arguments[...]
    while let option = rest.popFirst() {
      switch option {
      case "--app", "--boundaries", "--placement", "--record", "--replay", "--study", "--report", "--trace", "--fault-at":
        guard options[option] == nil else { throw wrong("\(option) is given twice") }
        guard let value = rest.popFirst(), !value.hasPrefix("--") else { throw wrong("\(option) needs a value") }
        options[option] = value
      case "--list", "--hold", "--up", "--help", "-h", "--bulkhead-host", "--live":
        guard flags.insert(option).inserted else { throw wrong("\(option) is given twice") }
      default:
        throw wrong(option.hasPrefix("-") ? "unknown option \"\(option)\"" : "unexpected argument \"\(option)\"")
      }
    }
    let modes = [options["--app"], options["--boundaries"], options["--replay"], options["--study"]].map { $0 != nil } + [flags.contains("--list")]
    guard modes.filter({ $0 }).count <= 1 else { throw wrong("--app, --boundaries, --list, --replay and --study go alone") }
    if let option = ["--report", "--fault-at"].first(where: { options[$0] != nil }) ?? (flags.contains("--live") ? "--live" : nil),
      options["--study"] == nil
    {
      throw wrong("\(option) goes with --study")
    }
    let faultAt = try options["--fault-at"].map { text throws(DistributionError) in
      guard let action = Int(text), action >= 1 else {
        throw wrong("--fault-at takes the number of an action of the script, from 1; got \"\(text)\"")
      }
      return action
    }
    if options["--app"] == nil {
      let takesPlacement = options["--replay"] != nil || options["--study"] != nil
      let withApp = takesPlacement ? ["--hold", "--up", "--record", "--trace"] : ["--placement", "--hold", "--up", "--record", "--trace"]
      if let option = withApp.first(where: { options[$0] != nil || flags.contains($0) }) {
        throw wrong("\(option) goes with --app")
      }
    }
    guard !flags.isSuperset(of: ["--hold", "--up"]) else { throw wrong("--hold and --up go alone: --up holds") }
    if let record = options["--record"], let trace = options["--trace"],
      URL(fileURLWithPath: record).standardizedFileURL == URL(fileURLWithPath: trace).standardizedFileURL
    {
      throw wrong("--record and --trace name the same file, \(record): give each its own")
    }
    if flags.contains("--up"), let option = ["--record", "--trace"].first(where: { options[$0] != nil }) {
      throw wrong("\(option) goes with a run, not with --up")
    }
    if flags.contains("--bulkhead-host") {
      self = .identify
    } else if !flags.isDisjoint(with: ["--help", "-h"]) {
      self = .help
    } else if let app = options["--app"], flags.contains("--up") {
      self = .up(app: app, placement: options["--placement"])
    } else if let app = options["--app"] {
      self = .run(
        app: app, placement: options["--placement"], hold: flags.contains("--hold"), record: options["--record"],
        trace: options["--trace"])
    } else if let file = options["--replay"] {
      self = .replay(file: file, placement: options["--placement"])
    } else if let app = options["--study"] {
      self = .study(
        app: app, report: options["--report"], placement: options["--placement"], faultAt: faultAt,
        live: flags.contains("--live"))
    } else if let app = options["--boundaries"] {
      self = .boundaries(app: app)
    } else {
      self = .list
    }
  }
}
