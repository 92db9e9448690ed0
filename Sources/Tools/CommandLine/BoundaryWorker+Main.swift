import Bulkhead
import BulkheadDistribution
import Foundation

extension BoundaryWorker {
  /// The `main` of a worker-only executable: serves the boundary that its host's arguments
  /// name, of one of `apps`, and exits when the host goes. Started any other way (by hand),
  /// it says what it is and exits with status 64.
  ///
  /// ```swift
  /// // Sources/child-worker/main.swift
  /// BoundaryWorker.main(apps: ExampleApp.all)
  /// ```
  public static func main(apps: [ScriptedApp]) -> Never {
    let terminal = HostTerminal(program: CommandLine.arguments.first ?? "worker")
    do {
      let arguments = Array(CommandLine.arguments.dropFirst())
      if let template = try WorkerCommand.TemplateRole(parsing: arguments) {
        serveAsTemplate(apps: apps, role: template, terminal: terminal)
      }
      guard let role = try WorkerCommand.Role(parsing: arguments) else {
        throw DistributionError.usage(
          """
          this executable serves boundaries for a Bulkhead host, which starts it with \
          \(WorkerCommand.Role.flag) APP BOUNDARY and hands it a socket and a secret on standard \
          input; it is not started by hand. Run the host instead (./compose.sh run APP).
          """)
      }
      main(apps: apps, role: role, terminal: terminal)
    } catch {
      terminal.fail("\(error)")
    }
  }

  /// Serves `role` and exits: with status 0 when the host closed the connection, 64 with the
  /// reason otherwise.
  static func main(apps: [ScriptedApp], role: WorkerCommand.Role, terminal: HostTerminal) -> Never {
    // Ctrl-C in a terminal reaches the whole process group; the host decides when workers stop.
    signal(SIGINT, SIG_IGN)
    let names = apps.map(\.name)
    guard let app = apps.named(role.app) else {
      // Said to the host that started this worker, if one did, in its greeting; and to a
      // person on standard error.
      refuseUnknownApp(role.app, apps: names)
      terminal.fail("there is no app \"\(role.app)\" to serve; this executable has \(names.joined(separator: ", "))")
    }
    do {
      try serveLaunched(app.root(), boundary: role.boundary, app: role.app, apps: names)
    } catch {
      terminal.fail("\(error)")
    }
    exit(0)
  }
}
