import Bulkhead
import BulkheadDistribution
import Foundation

/// One run of an app by the host's command line: its composition, the signals that stop it,
/// and what it prints.
@MainActor
final class HostSession {
  let app: ScriptedApp
  let composition: Composition
  private let terminal: HostTerminal
  let placement: Placement
  private let whenStopped: @Sendable () -> Void
  private let trace: TraceWriter?
  private let stops: StopSignals
  private var timingsSignal: (any DispatchSourceSignal)?

  /// A session whose workers' output and events also go to `boundaryLog`, if given, and that
  /// runs `whenStopped` once its workers are stopped, however it stops. `trace`, a path, is
  /// where the session writes a Chrome trace of what crosses the boundaries.
  init(
    app: ScriptedApp, placement: Placement, command: WorkerCommand, terminal: HostTerminal,
    boundaryLog: BoundaryLog? = nil, trace: String? = nil, whenStopped: @escaping @Sendable () -> Void = {}
  ) throws {
    self.app = app
    self.terminal = terminal
    self.placement = placement
    self.whenStopped = whenStopped
    // Before any worker starts: a stop signal that comes while they do is kept for `run`.
    stops = try StopSignals()
    signal(SIGPIPE, SIG_IGN)
    let trace = try trace.map { try TraceWriter(path: $0, host: app.name) }
    self.trace = trace
    composition = try Composition(
      root: app.root(), placement: placement, command: command, instrument: trace,
      onEvent: {
        terminal.say("  [event] \($0)")
        boundaryLog?.record($0)
      },
      onOutput: {
        terminal.say("  [\($0.boundary) \($0.worker) \($0.stream.rawValue)] \($0.text)")
        boundaryLog?.record($0)
      })
    timingsSignal = sayTimingsOnSIGUSR1()
  }

  /// Says `message` and the timings, stops the workers, removes the sockets, ends the trace,
  /// and exits with `status`.
  nonisolated func end(saying message: String, status: Int32) -> Never {
    terminal.say(message)
    Self.sayTimings(of: composition, to: terminal)
    composition.shutdown()
    Self.finish(trace, saying: terminal)
    whenStopped()
    exit(status)
  }

  /// SIGUSR1 prints the timings table, and the run goes on.
  private func sayTimingsOnSIGUSR1() -> any DispatchSourceSignal {
    signal(SIGUSR1, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
    source.setEventHandler { [composition, terminal] in Self.sayTimings(of: composition, to: terminal) }
    source.resume()
    return source
  }

  /// The timings table of the placed boundaries, if any.
  private nonisolated static func sayTimings(of composition: Composition, to terminal: HostTerminal) {
    guard let table = composition.timingsTable else { return }
    terminal.say("timings:\n" + table.split(separator: "\n").map { "  \($0)" }.joined(separator: "\n"))
  }

  /// Ends the trace's file, and says where it is or why it could not be written.
  private nonisolated static func finish(_ trace: TraceWriter?, saying terminal: HostTerminal) {
    guard let trace else { return }
    do {
      try trace.finish()
      terminal.say("trace written to \(trace.path): open it in ui.perfetto.dev or chrome://tracing")
    } catch {
      terminal.say("host: \(error)")
    }
  }

  /// One line per placed boundary: what crossed it, and what went wrong with its workers.
  private func sayWhatCrossed() {
    for process in composition.processes {
      guard let crossed = composition.statistics(of: process.boundary) else { continue }
      // Counted as the timings table counts them: round trips, then the effects' actions.
      terminal.say(
        "  \(process.boundary.padding(toLength: 20, withPad: " ", startingAt: 0)) crossed: "
          + "\(crossed.actions - crossed.precomputedActions) actions, \(crossed.effectActions) effect actions, "
          + "\(crossed.bytesSent) B sent, \(crossed.bytesReceived) B received, "
          + "\(crossed.hostPatches)/\(crossed.workerPatches) patches (host/worker), \(crossed.failures) failures")
    }
  }

  /// Prints the process tree, runs the app's script, says what crossed each boundary, and
  /// stops the workers. Ctrl-C, SIGTERM or SIGHUP, from the start of the session until the
  /// script ends, stop the workers and remove the sockets (and the run file) before the host
  /// exits, with the shell's status for death by that signal.
  func run(hold: Bool) async {
    await run { [composition] app, context, log in
      let held = ScriptedApp.Hold { composition.liveRoot.publish($0) }
      await app.run(within: context, hold: hold ? held : nil, log: log)
    }
  }

  /// As `run(hold:)`, with `script` running the app in the composition's context.
  func run(
    _ script: (ScriptedApp, BoundaryContext, _ log: @escaping @Sendable (String) -> Void) async -> Void
  ) async {
    stops.arm { [self] number in
      end(saying: "host: \(StopSignals.name(of: number)), stopping the workers", status: 128 + number)
    }
    let pid = ProcessInfo.processInfo.processIdentifier
    terminal.say(
      "app \(app.name): host pid \(pid), placement \(placement.file), sockets in \(composition.socketDirectory ?? "none")")
    for process in composition.processes {
      let name = process.boundary.padding(toLength: 20, withPad: " ", startingAt: 0)
      // A presented feature has no worker until it is presented: it claims one then.
      let workers = process.pids.isEmpty ? "vacant: a warm worker serves it once presented" : "worker pid " + process.pids.map(String.init).joined(separator: ", ")
      terminal.say("  \(name) \(workers)")
    }
    if composition.processes.isEmpty { terminal.say("  every boundary in the host process") }
    await script(app, composition.boundaryContext) { [terminal] in terminal.say($0) }
    stops.disarm()
    sayWhatCrossed()
    Self.sayTimings(of: composition, to: terminal)
    composition.shutdown()
    Self.finish(trace, saying: terminal)
    whenStopped()
    timingsSignal?.cancel()
  }
}
