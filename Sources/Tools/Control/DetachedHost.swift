import Bulkhead
import BulkheadDistribution
import Foundation
internal import Transport

/// The host of an app as `up` starts it (`--app APP --up`): it runs the app's script and then
/// holds, like `--hold`, with its control socket open, and leaves a run file naming that
/// socket in the run directory while it is up. `down`, SIGTERM, SIGINT or SIGHUP stop its
/// workers and remove its sockets and run file.
///
/// ```swift
/// try await DetachedHost(app: timers, placement: placement, command: command).run(terminal: terminal)
/// ```
@MainActor
struct DetachedHost {
  let app: ScriptedApp
  let placement: Placement
  let command: WorkerCommand

  func run(terminal: HostTerminal) async throws {
    guard !placement.entries.isEmpty else {
      throw DetachedError.nothingPlaced(app: app.name)
    }
    let directory = try RunDirectory.open(creating: true)
    let runPath = directory.runFile(of: app.name)
    if let run = try RunFile.read(at: runPath) {
      guard run.hostStatus(app: app.name) == .gone else {
        throw DetachedError.alreadyUp(app: app.name, pid: run.pid, controlSocket: run.controlSocket, runFile: runPath)
      }
      terminal.say("host: \(run.removeStale(at: runPath))")
    }
    let pid = getpid()
    let session = try HostSession(
      app: app, placement: placement, command: command, terminal: terminal,
      boundaryLog: BoundaryLog(path: directory.boundaryLog(of: app.name)),
      whenStopped: { RunFile.remove(at: runPath, ifWrittenBy: pid) })
    do {
      let socket = try session.composition.startControl(
        limits: try .control(), onEvent: { terminal.say("host: control socket: \($0)") }
      ) { [session] in
        session.end(saying: "host: down, stopping the workers", status: 0)
      }
      try RunFile(pid: pid, controlSocket: socket, placement: placement.file).publish(at: runPath)
      terminal.say("host: up, control socket \(socket), run file \(runPath)")
    } catch {
      session.end(saying: "host: \(error)", status: 64)
    }
    await session.run(hold: true)
  }
}
