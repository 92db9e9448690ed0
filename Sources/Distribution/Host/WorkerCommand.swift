import Bulkhead
import Foundation
internal import Transport

/// How a host starts a worker for a boundary: the executable, and its arguments for each
/// boundary path. The socket path and the launch secret go through the worker's standard
/// input, never its arguments.
///
/// ```swift
/// // One binary: the app's own executable, started again as a worker.
/// let command = WorkerCommand.thisExecutable(app: "guestbook")
/// // A worker executable of its own, built beside this one.
/// let command = try WorkerCommand.executable(named: "child-worker", app: "two-counters")
/// ```
public struct WorkerCommand: Sendable {
  /// The executable each worker runs.
  let executable: URL
  /// Its arguments for a worker of `boundary`.
  let arguments: @Sendable (_ boundary: String) -> [String]
  /// Serves a boundary, with the boundaries placed inside it, on a thread of the host's own
  /// instead of a process: for a loopback.
  let servesInProcess:
    (@Sendable (_ boundary: String, _ inner: InnerPlacement, _ control: FramedConnection, _ effects: FramedConnection) -> Void)?
  /// The arguments that start `executable` as a worker template, which forks each worker
  /// (`WorkerTemplate`); nil when each worker is spawned.
  let templateArguments: [String]?

  /// Workers that run `executable` with `arguments(boundary)`: for a worker that reads its
  /// arguments its own way, and whose `main` calls `BoundaryWorker.serve(_:boundary:)`. Each
  /// worker is spawned.
  ///
  /// ```swift
  /// let command = WorkerCommand(executable: URL(fileURLWithPath: "/usr/local/bin/guestbook-worker")) {
  ///   ["--serve", $0]
  /// }
  /// ```
  public init(executable: URL, arguments: @escaping @Sendable (_ boundary: String) -> [String]) {
    self.executable = executable
    self.arguments = arguments
    servesInProcess = nil
    templateArguments = nil
  }

  /// The same workers, each spawned from the executable rather than forked from a worker
  /// template: slower to start and larger (see "Worker templates" in docs/architecture.md).
  ///
  /// ```swift
  /// let command = try WorkerCommand.executable(named: "child-worker", app: "timers").spawningEachWorker()
  /// ```
  public func spawningEachWorker() -> WorkerCommand {
    WorkerCommand(executable: executable, arguments: arguments, servesInProcess: servesInProcess, templateArguments: nil)
  }

  /// No process at all: each worker of `root` is a thread of the host's own, talking to the
  /// host over socket pairs through the same endpoints as a worker process. For protocol tests
  /// that need no process; a worker killed (`Composition.killWorker`) has its connections cut.
  /// `root` makes the app's root reducer on each worker's thread, as a worker's `main` would.
  static func loopback<Root: Reducer & SendableMetatype>(_ root: @escaping @Sendable () -> Root) -> WorkerCommand {
    WorkerCommand(
      executable: URL(fileURLWithPath: "/proc/self/exe"), arguments: { _ in [] },
      servesInProcess: { boundary, inner, control, effects in
        try? BoundaryWorker.serve(
          root(), boundary: boundary, control: control, effects: effects,
          nesting: Nesting(inner: inner, command: .loopback(root)))
      }, templateArguments: nil)
  }

  private init(
    executable: URL, arguments: @escaping @Sendable (String) -> [String],
    servesInProcess: (@Sendable (String, InnerPlacement, FramedConnection, FramedConnection) -> Void)?,
    templateArguments: [String]?
  ) {
    self.executable = executable
    self.arguments = arguments
    self.servesInProcess = servesInProcess
    self.templateArguments = templateArguments
  }

  /// Workers that are `executable` in the worker role of `app`: an executable whose `main`
  /// calls `HostCommand.main(apps:)` or `BoundaryWorker.main(apps:)` (both in `BulkheadTools`)
  /// with an app named `app`.
  /// They are forked from a worker template of `app` (the same executable started with
  /// `WorkerCommand.TemplateRole`) unless `spawningEachWorker()` or `BULKHEAD_ZYGOTE=off` says not to.
  ///
  /// ```swift
  /// let command = WorkerCommand.executable(URL(fileURLWithPath: "/usr/local/bin/guestbook"), app: "guestbook")
  /// ```
  public static func executable(_ executable: URL, app: String) -> WorkerCommand {
    WorkerCommand(
      executable: executable, arguments: { Role(app: app, boundary: $0).arguments }, servesInProcess: nil,
      templateArguments: TemplateRole(app: app).arguments)
  }

  /// Workers that are this process's own executable started again in the worker role of
  /// `app`, so that one binary is the host and its workers.
  ///
  /// ```swift
  /// let composition = try Composition(root: Guestbook(), placement: placement, command: .thisExecutable(app: "guestbook"))
  /// ```
  public static func thisExecutable(app: String) -> WorkerCommand {
    executable(runningExecutable, app: app)
  }

  /// Workers that are the executable `name` in the directory of this process's executable,
  /// where `swift build` puts every product of a package, and `swift test` its test bundle.
  ///
  /// - Throws: `DistributionError.missingExecutable` when there is no such executable, with
  ///   the command that builds it.
  ///
  /// ```swift
  /// // In a test: the package's `guestbook` product, built beside the test bundle.
  /// let command = try WorkerCommand.executable(named: "guestbook", app: "guestbook")
  /// ```
  public static func executable(named name: String, app: String) throws(DistributionError) -> WorkerCommand {
    let candidate = runningExecutable.deletingLastPathComponent().appendingPathComponent(name)
    guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
      throw .missingExecutable(path: candidate.path, build: "swift build --product \(name)")
    }
    return executable(candidate, app: app)
  }

  /// The executable of this process, with symbolic links resolved, so that a worker started
  /// later runs the same file even if the process was started through a link. Found once: a
  /// process's executable does not change, and a fork of a worker template has the template's.
  static let runningExecutable: URL = {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  }()
}
