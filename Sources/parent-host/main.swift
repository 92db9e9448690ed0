import Examples
import Foundation

// The host process: runs an example app and owns its root state.
//
//   parent-host --list
//   parent-host --app two-counters

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("parent-host: \(message)\n".utf8))
  exit(64)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty || arguments == ["--list"] {
  for app in ExampleApp.all { print("\(app.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(app.summary)") }
  exit(0)
}
guard arguments.count == 2, arguments[0] == "--app" else {
  fail("usage: parent-host --list | --app NAME")
}
guard let app = ExampleApp.named(arguments[1]) else {
  fail("no app named \"\(arguments[1])\"; run \"parent-host --list\" for the names")
}
print("app \(app.name) (pid \(ProcessInfo.processInfo.processIdentifier)): every boundary in this process")
await app.run { print($0) }
