import Foundation

/// The command line of an app built with Bulkhead: runs this process as the host of one of
/// its apps, or, when a host started it as a worker, serves one boundary for that host. An
/// app's `main.swift` is one line, and its executable is host and workers at once:
///
/// ```swift
/// import Bulkhead
/// import GuestbookFeature
///
/// await HostCommand.main(apps: [guestbook])
/// ```
///
/// As a host it takes:
///
///     APP --list                           the apps, one per line with a summary
///     APP --boundaries NAME                the boundaries of app NAME that a placement can name
///     APP --app NAME [--placement FILE] [--hold]
///
/// and prints its pid, each placed boundary with its workers' pids, each action of the script
/// with the state after it, the workers' events and their output labelled by boundary. With
/// `--hold` it stays up after the script, showing the states effects bring. Ctrl-C, SIGTERM
/// and SIGHUP stop the workers and remove the sockets; the host then exits with 128 plus the
/// signal's number, as a shell reports a death by that signal.
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
    let terminal = HostTerminal(program: CommandLine.arguments.first ?? "host")
    do {
      if let worker = try WorkerArguments(parsing: arguments) {
        BoundaryWorker.main(apps: apps, role: worker, terminal: terminal)
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
        terminal.fail("there is no app \"\(name)\"; \"\(terminal.program) --list\" lists them: \(apps.map(\.name).joined(separator: ", "))")
      }
      return app
    }
    switch request {
    case .help:
      terminal.say(HostRequest.usage(program: terminal.program))
      exit(0)
    case .list:
      for app in apps { terminal.say("\(app.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(app.summary)") }
      exit(0)
    case let .boundaries(name):
      for boundary in app(named: name).boundaries { terminal.say("\(boundary)") }
      exit(0)
    case let .run(name, placementFile, hold):
      let selected = app(named: name)
      do {
        let placement = try placementFile.map { path throws(DistributionError) in try Placement(contentsOf: path) } ?? .inProcess
        let command =
          try workerExecutable.map { executable throws(DistributionError) in
            try WorkerCommand.executable(named: executable, app: selected.name)
          } ?? .thisExecutable(app: selected.name)
        let session = try HostSession(app: selected, placement: placement, command: command, terminal: terminal)
        await session.run(hold: hold)
      } catch {
        terminal.fail("\(error)")
      }
      exit(0)
    }
  }
}

/// What the host's command line asks for.
enum HostRequest: Equatable {
  case help
  case list
  case boundaries(app: String)
  case run(app: String, placement: String?, hold: Bool)

  static func usage(program: String) -> String {
    "usage: \(program) --list | --boundaries NAME | --app NAME [--placement FILE] [--hold]"
  }

  init(parsing arguments: [String], program: String) throws(DistributionError) {
    let usage = DistributionError.usage(Self.usage(program: program))
    var app: String?
    var placement: String?
    var hold = false
    var rest = arguments[...]
    switch rest.popFirst() {
    case nil, "--list":
      guard rest.isEmpty else { throw usage }
      self = .list
      return
    case "--boundaries":
      guard let name = rest.popFirst(), rest.isEmpty else { throw usage }
      self = .boundaries(app: name)
      return
    case "--app":
      app = rest.popFirst()
    case "-h", "--help":
      guard rest.isEmpty else { throw usage }
      self = .help
      return
    default:
      throw usage
    }
    while let option = rest.popFirst() {
      switch option {
      case "--placement" where placement == nil:
        guard let file = rest.popFirst() else { throw usage }
        placement = file
      case "--hold" where !hold:
        hold = true
      default:
        throw usage
      }
    }
    guard let app else { throw usage }
    self = .run(app: app, placement: placement, hold: hold)
  }
}
