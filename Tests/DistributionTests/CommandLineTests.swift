@testable import Bulkhead
@testable import BulkheadDistribution
@testable import BulkheadTools
import Foundation
import TestThreads
import Testing

/// The command lines of `parent-host` and `child-worker`, which are `HostCommand` and
/// `BoundaryWorker.main` as any app's executable gets them.
@Suite(.onItsOwnThread) struct CommandLineTests {
  @Test func theHostReadsItsOptionsInAnyOrder() throws {
    #expect(try HostRequest(parsing: [], program: "host") == .list)
    #expect(try HostRequest(parsing: ["--boundaries", "notes"], program: "host") == .boundaries(app: "notes"))
    #expect(
      try HostRequest(parsing: ["--app", "timers", "--hold", "--placement", "t.placement"], program: "host")
        == .run(app: "timers", placement: "t.placement", hold: true))
    #expect(try HostRequest(parsing: ["--help"], program: "host") == .help)
    #expect(
      try HostRequest(parsing: ["--placement", "t.placement", "--app", "timers"], program: "host")
        == .run(app: "timers", placement: "t.placement", hold: false))
  }

  @Test(arguments: [
    (["--app"], "--app needs a value"), (["--app", "timers", "--placement"], "--placement needs a value"),
    (["--app", "--hold"], "--app needs a value"), (["--app", "timers", "--hold", "--hold"], "--hold is given twice"),
    (["--app", "a", "--app", "b"], "--app is given twice"), (["--boundaries"], "--boundaries needs a value"),
    (["--list", "extra"], "unexpected argument \"extra\""), (["--apps", "timers"], "unknown option \"--apps\""),
    (["--list", "--app", "a"], "go alone"), (["--hold"], "--hold goes with --app"),
    (["--app", "a", "--record", "x.json", "--trace", "./x.json"], "--record and --trace name the same file"),
    (["--report", "r.html"], "--report goes with --study"), (["--fault-at", "3"], "--fault-at goes with --study"),
    (["--study", "two-counters", "--fault-at", "0"], "--fault-at takes the number of an action of the script, from 1"),
    (["--study", "two-counters", "--fault-at", "x"], "got \"x\""),
  ])
  func aCommandLineTheHostCannotActOnSaysWhatIsWrong(arguments: [String], problem: String) {
    #expect {
      try HostRequest(parsing: arguments, program: "host")
    } throws: { error in
      let message = "\(error)"
      return message.contains(problem) && message.hasSuffix(HostRequest.usage(program: "host"))
    }
  }

  @Test func onlyTheWorkerFlagWithAnAppAndABoundaryIsAWorkerRole() throws {
    #expect(try WorkerCommand.Role(parsing: ["--bulkhead-worker", "notes", "path"]) == WorkerCommand.Role(app: "notes", boundary: "path"))
    #expect(try WorkerCommand.Role(parsing: ["--app", "notes"]) == nil)
    #expect(try WorkerCommand.Role(parsing: ["notes", "--bulkhead-worker"]) == nil)
    #expect(throws: DistributionError.self) { try WorkerCommand.Role(parsing: ["--bulkhead-worker", "notes"]) }
  }

  @Test(arguments: [[], ["--bulkhead-worker", "two-counters", "counter1"]])
  func aWorkerStartedByHandSaysWhatItIsAndExits(arguments: [String]) throws {
    let run = try runBuilt("child-worker", arguments)
    #expect(run.status == 64)
    #expect(run.error.hasPrefix("child-worker: ") && run.error.contains("not started by hand"))
  }

  @Test func aWorkerAskedForAnAppItLacksNamesTheOnesItHas() throws {
    let run = try runBuilt("child-worker", ["--bulkhead-worker", "nope", "counter1"])
    #expect(run.status == 64)
    #expect(run.error.contains("no app \"nope\"") && run.error.contains("two-counters"))
  }

  @Test func aPresentedFeatureIsShownVacantUntilItIsPresented() throws {
    let placement = DocumentedCommandsTests.root.appendingPathComponent("placements/notes.placement").path
    let run = try runBuilt("parent-host", ["--app", "notes", "--placement", placement])
    #expect(run.status == 0, "\(run.error)")
    // The process tree, printed first: a line per placed boundary.
    let places = run.output.split(separator: "\n").filter { $0.contains(" worker pid ") || $0.contains(" vacant: ") }
    #expect(places.count == 2, "\(run.output)")
    #expect(places.contains { $0.hasPrefix("  destination ") && $0.hasSuffix(" vacant: a warm worker serves it once presented") })
    #expect(places.contains { $0.hasPrefix("  path ") && $0.contains(" worker pid ") })
  }

  @Test func theHostExplainsABadCommandLineAndAnUnknownApp() throws {
    let bad = try runBuilt("parent-host", ["--app", "two-counters", "--placment", "x"])
    #expect(bad.status == 64 && bad.error.contains("unknown option \"--placment\"") && bad.error.contains("usage: parent-host --list"))
    let unknown = try runBuilt("parent-host", ["--app", "nope"])
    #expect(unknown.status == 64 && unknown.error.contains("there is no app \"nope\""))
    let help = try runBuilt("parent-host", ["--help"])
    #expect(help.status == 0 && help.output.hasPrefix("usage: parent-host"))
  }
}

/// Runs an executable built beside the tests with standard input at end of file.
func runBuilt(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
  let process = Process()
  process.executableURL = workerExecutable.deletingLastPathComponent().appendingPathComponent(name)
  process.arguments = arguments
  let output = Pipe()
  let error = Pipe()
  process.standardOutput = output
  process.standardError = error
  process.standardInput = FileHandle.nullDevice
  try process.run()
  let printed = output.fileHandleForReading.readDataToEndOfFile()
  let complained = error.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, String(decoding: printed, as: UTF8.self), String(decoding: complained, as: UTF8.self))
}
