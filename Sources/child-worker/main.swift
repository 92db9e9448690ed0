import Bulkhead
import Examples
import Foundation
import Transport

// A worker process: serves one boundary of an example app for the host that started it. The
// host passes the socket path and launch secret on stdin, never in argv.
//
//   child-worker --app two-counters --boundary counter1

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("child-worker: \(message)\n".utf8))
  exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 4, arguments[0] == "--app", arguments[2] == "--boundary" else {
  fail("usage: child-worker --app NAME --boundary PATH (started by parent-host, not by hand)")
}
guard let app = ExampleApp.named(arguments[1]) else {
  fail("no app named \"\(arguments[1])\"")
}
// Ctrl-C in a terminal reaches the whole process group; the host decides when workers stop.
signal(SIGINT, SIG_IGN)
do {
  let launch = try WorkerLaunch.receive()
  let control = try launch.connect()
  let effects = try launch.connect()
  try BoundaryWorker.serve(app.root(), boundary: arguments[3], control: control, effects: effects)
} catch {
  fail("\(error)")
}
