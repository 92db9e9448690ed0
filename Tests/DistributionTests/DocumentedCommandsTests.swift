import Foundation
import TestThreads
import Testing

/// Every shell command in README.md and docs/*.md, run as a reader would run it, so that the
/// manual cannot drift from the code.
///
/// The convention the pages follow: a command is a line that starts with `$ ` in a ```console
/// block, and the lines under it, up to the next command, are what it prints. A `$ ` line in
/// any other block, or a ```sh/```bash/```shell block, fails the test: there is no other way to
/// write a command. Each page's commands run in order (an `up` before its `kill`, a `--record`
/// before its `replay`) with the host the tests built, a run directory of their own and a
/// working directory of their own (where `placements/` is this checkout's), and each must exit
/// with status 0.
@Suite(.onItsOwnThread) struct DocumentedCommandsTests {
  /// The commands a test cannot run, each with why and where it is run instead. Each must be
  /// in the pages, so that this list cannot outlive them.
  static let notRunHere: [String: String] = [
    "./compose.sh test":
      "it is this test suite; .ci/run runs it",
    "./compose.sh hold two-counters":
      "it stays up until Ctrl-C; TraceCommandLineTests runs the host with --hold and stops it with SIGINT, and `up` holds the same way",
    "./compose.sh top timers":
      "it draws in a terminal until q; DetachedCompositionTests.topRedrawsInARealTerminalAndGivesItBack types it in tmux",
    "./compose.sh bench":
      "a release build and minutes of measuring; `swift build` builds the benchmark, but no test runs it",
    "./compose.sh bench --write docs/benchmarks.md":
      "the same run, then it rewrites the page; BenchmarkPageTests writes a canned run into a copy of the page",
    "./compose.sh run --package Samples/Guestbook --product guestbook":
      "a release build of another package (minutes); .ci/run runs it",
    ".build/debug/bulkhead-soak restarts 1000":
      "a thousand restarts; SoakTests runs it",
    ".build/debug/bulkhead-soak presentations 1000":
      "a thousand presentations from the warm pool; SoakTests runs it",
  ]

  /// Commands of the walk-through in docs/your-own-app.md: they make and build a new package,
  /// minutes of building. Samples/Guestbook is that package finished, and `./compose.sh test`
  /// builds and tests it as an outside package; .ci/run also runs it through compose.sh.
  static let walkThrough = [
    "BULKHEAD=/path/to/this/checkout",
    "mkdir -p Tally/Sources/TallyFeature Tally/Sources/tally Tally/Tests/TallyFeatureTests Tally/placements",
    "cd Tally",
    "swift run tally --list",
    "swift run tally --boundaries tally",
    "echo counter > placements/tally.placement",
    "swift run tally --app tally --placement placements/tally.placement",
    "$BULKHEAD/compose.sh run --package . --product tally",
    "swift test",
  ]

  /// A line a command prints that the pages show under it: checked on both sides.
  static let keyLines: [String: String] = [
    "./compose.sh run two-counters":
      "state: State(counter1: Examples.Counter.State(count: 1), counter2: Examples.Counter.State(count: 0), parentObservations: 1)",
    "./compose.sh boundaries onboarding": "_internal.login (ifLet → Login)",
    "./compose.sh boundaries two-counters": "counter2 (Scope → Counter)",
    "./compose.sh kill timers timers 1": "timers: sent SIGKILL to worker 1 of timers",
    "./compose.sh down timers": "timers is down",
    "./compose.sh study two-counters": "[3/7] kill counter1 at action 2 of 4",
    "./compose.sh replay timers.jsonl": "replay matched all 6 steps",
    "./compose.sh send two-counters 'counter1(.incrementButtonTapped)'":
      "state: State(counter1: Examples.Counter.State(count: 1), counter2: Examples.Counter.State(count: 0), parentObservations: 3)",
    "./compose.sh state two-counters counter1 --json": #"{"count":1}"#,
    "./compose.sh send two-counters 'counter1(.incrementButtonTapped)' --repeat 100": "sent 100 actions; the last:",
    "./compose.sh state two-counters counter1": "State(count: 200)",
  ]

  static let root = Compose.script.deletingLastPathComponent()

  /// README.md and every page in docs/.
  static var pages: [URL] {
    let docs = root.appendingPathComponent("docs")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
    return [root.appendingPathComponent("README.md")]
      + names.filter { $0.hasSuffix(".md") }.sorted().map { docs.appendingPathComponent($0) }
  }

  @Test func thePagesWriteCommandsOnlyOneWay() throws {
    var misplaced: [String] = []
    for page in Self.pages {
      misplaced += try DocumentedCommands(page: page).misplaced
    }
    #expect(misplaced.isEmpty, "write each command as a `$ ` line in a ```console block:\n\(misplaced.joined(separator: "\n"))")
  }

  @Test func everyCommandNotRunHereIsInThePagesAndEveryKeyLineUnderItsCommand() throws {
    let documented = try Self.pages.map { try DocumentedCommands(page: $0) }
    let commands = Set(documented.flatMap { $0.commands.map(\.command) })
    for command in Self.notRunHere.keys.sorted() + Self.walkThrough {
      #expect(commands.contains(command), "\(command) is listed as not run here, but no page has it")
    }
    for (command, line) in Self.keyLines {
      let shown = documented.flatMap(\.commands).filter { $0.command == command }
      #expect(shown.contains { $0.output.contains(line) }, "the pages do not show \"\(line)\" under \(command)")
    }
  }

  @Test(arguments: pages.map(\.lastPathComponent))
  func everyCommandOfAPageRunsAndSucceeds(name: String) throws {
    let page = try #require(Self.pages.first { $0.lastPathComponent == name })
    let commands = try DocumentedCommands(page: page).commands
    let runnable = commands.filter { Self.notRunHere[$0.command] == nil && !Self.walkThrough.contains($0.command) }
    guard !runnable.isEmpty else { return }
    let compose = try Compose()
    defer { compose.cleanUp() }
    let directory = compose.runtime.appendingPathComponent("work")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
    try FileManager.default.createSymbolicLink(
      at: directory.appendingPathComponent("placements"), withDestinationURL: Self.root.appendingPathComponent("placements"))
    for command in runnable {
      guard command.command.hasPrefix("./compose.sh ") else {
        Issue.record("\(name):\(command.number): \(command.command) is not a compose.sh command; list it in notRunHere with why")
        continue
      }
      let result = try compose.shell(command.command, in: directory)
      #expect(result.status == 0, "\(name):\(command.number): \(command.command)\n\(result)")
      if let line = Self.keyLines[command.command] {
        #expect((result.output + result.error).contains(line), "\(name):\(command.number): \(command.command) did not print \"\(line)\"\n\(result)")
      }
    }
  }
}

/// The commands of one Markdown page, by the convention `DocumentedCommandsTests` states.
struct DocumentedCommands {
  struct Command {
    /// The command without its `$ `.
    let line: String
    /// The command without a comment after it (` # …`).
    var command: String {
      guard let comment = line.range(of: " # ") else { return line }
      return line[..<comment.lowerBound].trimmingCharacters(in: .whitespaces)
    }
    /// Its line number in the page.
    let number: Int
    /// The lines shown under it.
    var output: [String] = []
  }

  private(set) var commands: [Command] = []
  /// `page:line: text` of each command written some other way.
  private(set) var misplaced: [String] = []

  init(page: URL) throws {
    let name = page.lastPathComponent
    var fence: String?
    var fenceLine = 0
    for (index, line) in try String(contentsOf: page, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let number = index + 1
      if line.hasPrefix("```") {
        if fence == nil {
          let language = String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)
          fence = language
          fenceLine = number
          if ["sh", "bash", "shell", "zsh"].contains(language) { misplaced.append("\(name):\(number): a ```\(language) block") }
        } else {
          fence = nil
        }
      } else if let language = fence {
        if language == "console", line.hasPrefix("$ ") {
          commands.append(Command(line: String(line.dropFirst(2)), number: number))
        } else if language == "console", let last = commands.indices.last, commands[last].number > fenceLine {
          commands[last].output.append(String(line))
        } else if line.hasPrefix("$ ") {
          misplaced.append("\(name):\(number): \(line)")
        }
      }
    }
  }
}

extension Compose {
  /// Runs the compose.sh command `command` with bash in `directory`, `./compose.sh` being this
  /// checkout's; one that runs past two minutes is sent SIGTERM, which a host ends on.
  func shell(_ command: String, in directory: URL) throws -> Result {
    let line = "timeout 120 '\(Self.script.path)'" + command.dropFirst("./compose.sh".count)
    return try bash(["-c", line], in: directory).finishSynchronously()
  }
}
