import Foundation
import Testing

/// The `guestbook` executable as a user runs it: the host of its own app with the composer in
/// a worker that is the same binary, and a worker started by hand that says what it is.
@Suite struct CommandLineTests {
  @Test func theHostRunsTheScriptWithTheComposerInItsOwnBinary() throws {
    let placement = FileManager.default.temporaryDirectory
      .appendingPathComponent("guestbook-\(getpid()).placement")
    try "composer\n".write(to: placement, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: placement) }
    let run = try runGuestbook(["--app", "guestbook", "--placement", placement.path])
    #expect(run.status == 0, "\(run.error)")
    let lines = run.output.split(separator: "\n")
    // The composer is a sheet: its place is vacant until the script presents it, and then a
    // warm worker (this same binary) serves it.
    let place = try #require(lines.first { $0.hasPrefix("  composer ") })
    #expect(place.hasSuffix(" vacant: a warm worker serves it once presented"), "\(run.output)")
    #expect(lines.contains { $0.contains("[event] worker ") && $0.hasSuffix(" serves composer") }, "\(run.output)")
    #expect(run.output.contains("name: \"Blob\", message: \"Lovely place!\""))
    // What crossed the composer's boundary: the script's four composer actions and the two
    // delegate actions its effects sent back through it.
    #expect(lines.contains { $0.contains("composer") && $0.contains("crossed: ") && $0.contains(" effect actions, ") }, "\(run.output)")
    let finalState = try #require(lines.last { $0.hasPrefix("state:") })
    #expect(finalState.hasPrefix("state: State(entries: [") && finalState.hasSuffix("composer: nil)"))
  }

  @Test func aWorkerStartedByHandSaysWhatItIsAndExits() throws {
    let run = try runGuestbook(["--bulkhead-worker", "guestbook", "composer"])
    #expect(run.status == 64)
    #expect(run.error.contains("not started by hand"))
    #expect(run.output.isEmpty)
  }

  @Test func anUnknownAppIsNamedWithTheKnownOnes() throws {
    let run = try runGuestbook(["--app", "nope"])
    #expect(run.status == 64)
    #expect(run.error.contains("there is no app \"nope\"") && run.error.contains("guestbook"))
  }
}

/// Runs the `guestbook` executable built beside the tests with standard input at end of file,
/// and returns what it printed.
private func runGuestbook(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
  let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    .deletingLastPathComponent().appendingPathComponent("guestbook")
  let process = Process()
  process.executableURL = executable
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
