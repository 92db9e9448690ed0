import Bulkhead
import Examples
import Foundation
import Transport

// The host process: runs an example app, owns its root state, and starts a worker process for
// every boundary its placement file names.
//
//   parent-host --list
//   parent-host --boundaries two-counters
//   parent-host --app two-counters [--placement placements/two-counters.placement] [--hold]
//
// With --hold the host stays up after the app's script, showing the states its effects bring,
// until Ctrl-C or SIGTERM.

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("parent-host: \(message)\n".utf8))
  exit(64)
}

/// Writes one line at once, unbuffered even into a pipe, so that compose.sh and logs show
/// events as they happen, and lines from several threads never mix.
@Sendable func say(_ line: String) {
  // A reader that went away (`parent-host ... | head`) must not stop the host before it has
  // stopped its workers: SIGPIPE is ignored, and a failed write is dropped.
  try? FileHandle.standardOutput.write(contentsOf: Data("\(line)\n".utf8))
}

signal(SIGPIPE, SIG_IGN)

func app(named name: String) -> ExampleApp {
  guard let app = ExampleApp.named(name) else {
    fail("no app named \"\(name)\"; run \"parent-host --list\" for the names")
  }
  return app
}

var arguments = Array(CommandLine.arguments.dropFirst())
let hold = arguments.last == "--hold"
if hold { arguments.removeLast() }
switch arguments.first {
case nil, "--list":
  for app in ExampleApp.all {
    say("\(app.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(app.summary)")
  }
  exit(0)
case "--boundaries" where arguments.count == 2:
  for boundary in app(named: arguments[1]).boundaries { say("\(boundary)") }
  exit(0)
case "--app" where arguments.count == 2 || (arguments.count == 4 && arguments[2] == "--placement"):
  break
default:
  fail("usage: parent-host --list | --boundaries NAME | --app NAME [--placement FILE] [--hold]")
}

let selected = app(named: arguments[1])
let host = ProcessInfo.processInfo.processIdentifier
let placement: Placement
do {
  placement = arguments.count == 4 ? try Placement(contentsOf: arguments[3]) : .inProcess
} catch {
  fail("\(error)")
}
let workerExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  .deletingLastPathComponent().appendingPathComponent("child-worker")
let command = WorkerCommand(executable: workerExecutable) { boundary in
  ["--app", selected.name, "--boundary", boundary]
}
let composition: Composition
do {
  composition = try Composition(
    root: selected.root(), placement: placement, command: command,
    onEvent: { say("  [event] \($0)") },
    onOutput: { say("  [\($0.worker) \($0.stream.rawValue)] \($0.text)") })
} catch {
  fail("\(error)")
}

// Ctrl-C, SIGTERM and SIGHUP (the terminal closed) stop the workers and remove the sockets
// before the host exits, with the shell's status for death by that signal.
let signals = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")].map { number, name in
  signal(number, SIG_IGN)
  let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
  source.setEventHandler {
    say("host: \(name), stopping the workers")
    composition.shutdown()
    exit(128 + number)
  }
  source.resume()
  return source
}

say("app \(selected.name): host pid \(host), placement \(placement.file), sockets in \(composition.socketDirectory ?? "none")")
for process in composition.processes {
  say("  \(process.boundary.padding(toLength: 20, withPad: " ", startingAt: 0)) worker pid \(process.pids.map(String.init).joined(separator: ", "))")
}
if composition.processes.isEmpty { say("  every boundary in the host process") }
await selected.run(in: composition, hold: hold) { say($0) }
composition.shutdown()
withExtendedLifetime(signals) {}
