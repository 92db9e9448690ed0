import Bulkhead
import BulkheadDistribution
import Foundation

extension BoundaryWorker {
  /// Serves as the worker template of `role.app` for the host that started this process, and
  /// exits when the host lets it go or dies. Each worker it forks serves the boundary its host
  /// asked for, exactly as a worker started with `WorkerCommand.Role` does.
  static func serveAsTemplate(apps: [ScriptedApp], role: WorkerCommand.TemplateRole, terminal: HostTerminal) -> Never {
    signal(SIGINT, SIG_IGN)
    do {
      // A worker forked for an app this executable lacks tells its host so, as a spawned one does.
      try serveAsTemplate(warming: apps.named(role.app)?.root()) { boundary in
        main(apps: apps, role: WorkerCommand.Role(app: role.app, boundary: boundary), terminal: terminal)
      }
    } catch {
      terminal.fail("\(error)")
    }
    exit(0)
  }
}
