import Bulkhead
import Foundation
internal import Transport

/// The arguments that put an executable in the worker-template role for `app`: it loads the
/// app's code once, then forks a worker for each boundary its host asks for (`WorkerTemplate`).
struct TemplateArguments: Equatable {
  static let flag = "--bulkhead-zygote"

  let app: String

  var arguments: [String] { [Self.flag, app] }

  init(app: String) { self.app = app }

  /// The template role `arguments` ask for: nil when they do not start with the flag.
  ///
  /// - Throws: a usage message when the flag is there without exactly one app.
  init?(parsing arguments: [String]) throws(DistributionError) {
    guard arguments.first == Self.flag else { return nil }
    guard arguments.count == 2 else {
      throw .usage("\(Self.flag) takes an app, and only a host passes it")
    }
    self.init(app: arguments[1])
  }
}

extension BoundaryWorker {
  /// Serves as the worker template of `role.app` for the host that started this process, and
  /// exits when the host lets it go or dies. Each worker it forks serves the boundary its host
  /// asked for, exactly as a worker started with `WorkerArguments` does.
  ///
  /// Forking copies only the thread that forks, so the template starts no thread of its own
  /// before it serves: it reads its launch without the thread that watches a worker's input,
  /// and warms the app's code on the main thread.
  static func serveAsTemplate(apps: [ScriptedApp], role: TemplateArguments, terminal: HostTerminal) -> Never {
    signal(SIGINT, SIG_IGN)
    do {
      guard isatty(STDIN_FILENO) == 0 else {
        throw DistributionError.usage("a worker template is started by a Bulkhead host, not by hand")
      }
      let connection = try WorkerLaunch.receive(watchingInput: false).connect()
      // The app's reducers, the runtime's metadata for their types and what it knows of their
      // conformances, made once here and shared by every worker forked afterwards. A worker
      // forked for an app this executable lacks tells its host so, as a spawned one does.
      if let app = apps.named(role.app) { warmUp(app.root()) }
      try TemplateServer.serve(connection) { boundary in
        main(apps: apps, role: WorkerArguments(app: role.app, boundary: boundary), terminal: terminal)
      }
    } catch {
      terminal.fail("\(error)")
    }
    exit(0)
  }
}
