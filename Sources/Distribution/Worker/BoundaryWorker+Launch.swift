import Bulkhead
import Foundation
internal import Transport

// What a worker's `main` (`BoundaryWorker.main(apps:)` in `BulkheadTools`) asks of the runtime
// once it has read its role from its arguments: the connection to its host and the serving,
// which stay here so that the tools see no socket.
extension BoundaryWorker {
  /// Serves `boundary` of `root` for the host that started this process, which handed it a
  /// socket and a secret on standard input, until the host closes the connection. A root
  /// without that boundary greets the host with the boundaries it has, `app` and `apps`.
  ///
  /// ```swift
  /// try BoundaryWorker.serveLaunched(app.root(), boundary: "composer", app: "guestbook", apps: ["guestbook"])
  /// ```
  package static func serveLaunched<Root: Reducer>(
    _ root: sending Root, boundary: String, app: String, apps: [String]
  ) throws {
    // Boundaries placed inside this one run in workers this one spawns: a template of its own
    // would be one more process per worker, and the host's forks children of the host.
    let command = WorkerCommand.thisExecutable(app: app).spawningEachWorker()
    guard boundary != Wire.warmBoundary else {
      let launch = try launchFromHost()
      let control = try launch.connect(.control)
      let effects = try launch.connect(.effects)
      return serve(WarmServer(root, effects: effects, app: app, apps: apps, command: command), on: control)
    }
    let host = try connectToHost()
    let nesting = Nesting(inner: try InnerPlacement(brief: host.brief), command: command)
    try serve(
      root, boundary: boundary, control: host.control, effects: host.effects, app: app, apps: apps, nesting: nesting)
  }

  /// Tells the host that started this process, if one did, that this executable has no app
  /// `app`, only `apps`, and returns when the host has let it go.
  ///
  /// ```swift
  /// BoundaryWorker.refuseUnknownApp("nope", apps: ["guestbook"])
  /// ```
  package static func refuseUnknownApp(_ app: String, apps: [String]) {
    guard let host = try? connectToHost() else { return }
    withExtendedLifetime(host.effects) { serve(RefusingServer(.unknownApp(app, apps: apps)), on: host.control) }
  }

  /// Serves as a worker template for the host that started this process: warms `root`'s code
  /// (nil: an app this executable lacks), then forks a child for each boundary the host asks
  /// for, which runs `worker` with it. Returns when the host lets it go or dies.
  ///
  /// Forking copies only the thread that forks, so the template starts no thread of its own
  /// before it serves: it reads its launch without the thread that watches a worker's input,
  /// and warms the app's code on the main thread.
  ///
  /// ```swift
  /// try BoundaryWorker.serveAsTemplate(warming: app.root()) { boundary in serveWorker(boundary) }
  /// ```
  package static func serveAsTemplate(
    warming root: (any Reducer)?, worker: @escaping (_ boundary: String) -> Never
  ) throws {
    guard isatty(STDIN_FILENO) == 0 else {
      throw DistributionError.usage("a worker template is started by a Bulkhead host, not by hand")
    }
    let connection = try WorkerLaunch.receive(watchingInput: false).connect()
    // The app's reducers, the runtime's metadata for their types and what it knows of their
    // conformances, made once here and shared by every worker forked afterwards.
    if let root { warmUp(root) }
    try TemplateServer.serve(connection, child: worker)
  }
}
