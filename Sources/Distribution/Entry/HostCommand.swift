import Bulkhead
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
///     APP --app NAME [--placement FILE] [--hold] [--trace FILE]
///
/// and prints its pid, each placed boundary with its workers' pids, each action of the script
/// with the state after it, the workers' events and their output labelled by boundary. With
/// `--hold` it stays up after the script, showing the states effects bring. Ctrl-C, SIGTERM
/// and SIGHUP stop the workers and remove the sockets; the host then exits with 128 plus the
/// signal's number, as a shell reports a death by that signal. It prints a table of each
/// boundary's timings at the end, on Ctrl-C, and on SIGUSR1; `--trace FILE` writes a Chrome
/// trace of the crossings to FILE.
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
      for boundary in app(named: name).boundaries { terminal.say("\(boundary)") }
      exit(0)
    case let .run(name, placementFile, hold, trace):
      let selected = app(named: name)
      do {
        let placement = try placementFile.map { path throws(DistributionError) in try Placement(contentsOf: path) } ?? .inProcess
        // A worker executable must be there only when a worker will start.
        let command =
          try workerExecutable.map { executable throws(DistributionError) in
            placement.entries.isEmpty
              ? WorkerCommand.thisExecutable(app: selected.name)
              : try WorkerCommand.executable(named: executable, app: selected.name)
          } ?? .thisExecutable(app: selected.name)
        let session = try HostSession(
          app: selected, placement: placement, command: command, terminal: terminal, trace: trace)
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
  case run(app: String, placement: String?, hold: Bool, trace: String? = nil)
  /// `--bulkhead-host`: says that this executable is a Bulkhead host, for `compose.sh`.
  case identify

  static func usage(program: String) -> String {
    "usage: \(program) --list | --boundaries NAME | --app NAME [--placement FILE] [--hold] [--trace FILE]"
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
      case "--app", "--boundaries", "--placement", "--trace":
        guard options[option] == nil else { throw wrong("\(option) is given twice") }
        guard let value = rest.popFirst(), !value.hasPrefix("--") else { throw wrong("\(option) needs a value") }
        options[option] = value
      case "--list", "--hold", "--help", "-h", "--bulkhead-host":
        guard flags.insert(option).inserted else { throw wrong("\(option) is given twice") }
      default:
        throw wrong(option.hasPrefix("-") ? "unknown option \"\(option)\"" : "unexpected argument \"\(option)\"")
      }
    }
    let modes = [options["--app"] != nil, options["--boundaries"] != nil, flags.contains("--list")]
    guard modes.filter({ $0 }).count <= 1 else { throw wrong("--app, --boundaries and --list go alone") }
    if options["--app"] == nil {
      if let option = ["--placement", "--hold", "--trace"].first(where: { options[$0] != nil || flags.contains($0) }) {
        throw wrong("\(option) goes with --app")
      }
    }
    if flags.contains("--bulkhead-host") {
      self = .identify
    } else if !flags.isDisjoint(with: ["--help", "-h"]) {
      self = .help
    } else if let app = options["--app"] {
      self = .run(
        app: app, placement: options["--placement"], hold: flags.contains("--hold"), trace: options["--trace"])
    } else if let app = options["--boundaries"] {
      self = .boundaries(app: app)
    } else {
      self = .list
    }
  }
}
