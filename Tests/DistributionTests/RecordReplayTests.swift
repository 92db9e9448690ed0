@testable import BulkheadDistribution
@testable import BulkheadTools
import Foundation
import TestThreads
import Testing
import Transport

/// `--record FILE` and `--replay FILE` as a user runs them: the built `parent-host`, real
/// workers, real files.
@Suite(.onItsOwnThread) struct RecordReplayTests {
  /// A directory of its own for each test, removed when the test ends.
  final class Scratch {
    let directory: URL

    init() throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent("bulkhead-replay-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// The path of `name` in the directory, written with `contents` when given.
    func file(_ name: String, _ contents: String? = nil) throws -> String {
      let url = directory.appendingPathComponent(name)
      if let contents { try Data(contents.utf8).write(to: url) }
      return url.path
    }

    /// Records a run of `app` into `name`, then edits line `line` of the recording (the
    /// header is line 1), which must hold `old`, to hold `new` instead.
    func recording(
      _ name: String, of app: String, placement: String? = nil, editing line: Int, _ old: String, _ new: String
    ) throws -> String {
      let path = try file(name)
      let placed = placement.map { ["--placement", $0] } ?? []
      #expect(try runBuilt("parent-host", ["--app", app, "--record", path] + placed).status == 0)
      var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
      #expect(lines[line - 1].contains(old))
      lines[line - 1] = lines[line - 1].replacingOccurrences(of: old, with: new)
      try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
      return path
    }
  }

  @Test func theHostReadsRecordAndReplay() throws {
    #expect(
      try HostRequest(parsing: ["--record", "r.jsonl", "--app", "timers"], program: "host")
        == .run(app: "timers", placement: nil, hold: false, record: "r.jsonl"))
    #expect(
      try HostRequest(parsing: ["--replay", "r.jsonl", "--placement", "t.placement"], program: "host")
        == .replay(file: "r.jsonl", placement: "t.placement"))
    for (arguments, problem) in [
      (["--replay", "r.jsonl", "--hold"], "--hold goes with --app"), (["--record", "r.jsonl"], "--record goes with --app"),
      (["--replay", "r.jsonl", "--app", "timers"], "go alone"), (["--app", "timers", "--record"], "--record needs a value"),
    ] {
      #expect {
        try HostRequest(parsing: arguments, program: "host")
      } throws: { error in
        "\(error)".contains(problem)
      }
    }
  }

  @Test func aRunWithAnEffectInAWorkerReplaysAlikeInTheHostAndInTheWorker() throws {
    let scratch = try Scratch()
    let placement = try scratch.file("profile.placement", "editForm\n")
    let recording = try scratch.file("profile.jsonl")
    let recorded = try runBuilt("parent-host", ["--app", "profile", "--placement", placement, "--record", recording])
    #expect(recorded.status == 0)
    #expect(recorded.output.contains("recording: 4 steps written to \(recording)"))
    let lines = try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 5)
    #expect(lines.first?.contains("\"app\":\"profile\"") == true && lines.first?.contains(placement) == true)
    #expect(lines.filter { $0.contains("\"from\":\"outside\"") }.count == 3)
    // The save effect's answer runs in the worker, and comes back as the fourth step.
    #expect(lines.last?.contains("\"from\":\"effect\"") == true && lines.last?.contains("saveResponse") == true)
    for arguments in [["--replay", recording], ["--replay", recording, "--placement", placement]] {
      let replayed = try runBuilt("parent-host", arguments)
      #expect(replayed.status == 0, "\(arguments): \(replayed.output) \(replayed.error)")
      #expect(replayed.output.contains("replay matched all 4 steps"))
    }
  }

  @Test func ticksOfATimerInAWorkerReplayOnTheReplayClock() async throws {
    let scratch = try Scratch()
    let placement = try scratch.file("timers.placement", "timers pool 2\n")
    let recording = try scratch.file("timers.jsonl")
    let (lines, continuation) = AsyncStream<String>.makeStream()
    let host = try WorkerProcess(
      name: "host", executable: workerExecutable.deletingLastPathComponent().appendingPathComponent("parent-host"),
      arguments: ["--app", "timers", "--placement", placement, "--hold", "--record", recording],
      socketPath: "", secret: .random()
    ) { continuation.yield($0.text) }
    // Should the host exit early, the lines end instead of leaving the test waiting.
    Task {
      _ = await host.waitForExit()
      continuation.finish()
    }
    // Two ticks of the live clock, a second apart, each a state line after "holding".
    var ticks = 0
    var holding = false
    for await line in lines {
      if line.hasPrefix("holding") { holding = true }
      if holding && line.hasPrefix("state:") { ticks += 1 }
      if ticks == 2 { break }
    }
    kill(host.pid, SIGINT)
    #expect(await host.waitForExit() == .exited(status: 128 + SIGINT))
    #expect(ticks == 2)
    let steps = try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n").dropFirst()
    #expect(steps.filter { $0.contains("\"from\":\"effect\"") && $0.contains("tick") }.count >= 2)
    let replayed = try runBuilt("parent-host", ["--replay", recording, "--placement", placement])
    #expect(replayed.status == 0, "\(replayed.output) \(replayed.error)")
    // The ticks came again, in order, on a replay clock that moves only to wake them.
    #expect(replayed.output.contains("replay matched all \(steps.count) steps"))
  }

  @Test func aReplayFindsAStateEditedInTheRecordingAndShowsTheDiff() throws {
    let scratch = try Scratch()
    let placement = try scratch.file("two.placement", "counter1\ncounter2\n")
    // Step 2 sets counter2 to 1; the recording now says 7.
    let recording = try scratch.recording(
      "two-counters.jsonl", of: "two-counters", placement: placement, editing: 3, "\"counter2\":{\"count\":1}",
      "\"counter2\":{\"count\":7}")
    for arguments in [["--replay", recording], ["--replay", recording, "--placement", placement]] {
      let replayed = try runBuilt("parent-host", arguments)
      #expect(replayed.status == 1)
      #expect(replayed.output.contains("replay diverged at step 2 (\(recording):3)"))
      #expect(replayed.output.contains("−   counter2: Counter.State(count: 7),") && replayed.output.contains("+   counter2: Counter.State(count: 1),"))
    }
  }

  @Test func aReplayOfADifferentRunFindsTheActionThatDiffers() throws {
    let scratch = try Scratch()
    // The first action sent becomes counter2's increment: the store takes another path.
    let recording = try scratch.recording(
      "two-counters.jsonl", of: "two-counters", editing: 2, "\"sent\":{\"counter1\"", "\"sent\":{\"counter2\"")
    let replayed = try runBuilt("parent-host", ["--replay", recording])
    #expect(replayed.status == 1)
    #expect(replayed.output.contains("replay diverged at step 1"))
    #expect(replayed.output.contains("recorded: outside action counter1(") && replayed.output.contains("replayed: outside action counter2("))
  }

  @Test func aFileThatCannotBeReplayedGetsAnErrorNamingTheFileAndTheLine() throws {
    let scratch = try Scratch()
    let recording = try scratch.file("good.jsonl")
    #expect(try runBuilt("parent-host", ["--app", "two-counters", "--record", recording]).status == 0)
    let good = try String(contentsOfFile: recording, encoding: .utf8)
    let header = String(good.prefix { $0 != "\n" })
    let cases: [(name: String, contents: String?, problem: String)] = [
      ("missing.jsonl", nil, "missing.jsonl: there is no recording at this path"),
      ("empty.jsonl", "", "empty.jsonl: the file is empty, not a recording"),
      ("placement.jsonl", "counter1\ncounter2\n", "placement.jsonl:1: not a Bulkhead recording"),
      ("other.jsonl", "{\"format\":\"chrome-trace\"}\n", "other.jsonl:1: not a Bulkhead recording"),
      ("version.jsonl", good.replacingOccurrences(of: "\"version\":1", with: "\"version\":2"), "version.jsonl:1: the recording has format version 2"),
      ("text-version.jsonl", good.replacingOccurrences(of: "\"version\":1", with: "\"version\":\"1\""),
       "text-version.jsonl:1: the header's \"version\" must be a whole number; it is the text \"1\""),
      ("state-type.jsonl", good.replacingOccurrences(of: "\"counter1\":{\"count\":1}", with: "\"counter1\":{\"count\":\"one\"}"),
       "state-type.jsonl:2: \"state\" does not decode as Examples.TwoCounters.State"),
      ("unknown.jsonl", good.replacingOccurrences(of: "\"app\":\"two-counters\"", with: "\"app\":\"nope\""), "unknown.jsonl:1: the recording is of the app \"nope\""),
      ("another.jsonl", good.replacingOccurrences(of: "\"app\":\"two-counters\"", with: "\"app\":\"dashboard\""), "another.jsonl:1: the recording of \"dashboard\" has state Examples.TwoCounters.State"),
      ("crlf.jsonl", good.replacingOccurrences(of: "\n", with: "\r\n"), "crlf.jsonl:1: the line ends with CR LF"),
      ("nul.jsonl", header + "\n{\"step\":1,\u{0}}\n", "nul.jsonl:2: the line holds a NUL byte"),
      ("broken.jsonl", header + "\n{\"step\":1,\"from\":\"outside\"\n", "broken.jsonl:2: the line is not a JSON object"),
      ("gap.jsonl", header + "\n" + good.split(separator: "\n")[2] + "\n", "gap.jsonl:2: expected step 1 here; \"step\" is the value 2"),
      ("text-step.jsonl", good.replacingOccurrences(of: "\"step\":1,", with: "\"step\":\"1\","),
       "text-step.jsonl:2: expected step 1 here; \"step\" is the text \"1\""),
      ("fraction.jsonl", good.replacingOccurrences(of: "\"counter1\":{\"count\":1}", with: "\"counter1\":{\"count\":1.5}"),
       "fraction.jsonl:2: \"state\" does not decode as Examples.TwoCounters.State: a value does not fit its field"),
      // JSONSerialization would keep the last "step" and the replay would run step 2 as 1.
      ("twice.jsonl", good.replacingOccurrences(of: "\"step\":1,", with: "\"step\":1,\"step\":2,"),
       "twice.jsonl:2: the key \"step\" appears twice in one object"),
      ("twice-nested.jsonl", good.replacingOccurrences(of: "\"counter1\":{\"count\":1}", with: "\"counter1\":{\"count\":1,\"count\":2}"),
       "twice-nested.jsonl:2: the key \"count\" appears twice in one object"),
    ]
    for (name, contents, problem) in cases {
      let path = contents.map { try? scratch.file(name, $0) } ?? scratch.directory.appendingPathComponent(name).path
      let replayed = try runBuilt("parent-host", ["--replay", try #require(path)])
      #expect(replayed.status == 64, "\(name)")
      #expect(replayed.error.contains(scratch.directory.appendingPathComponent(problem).path), "\(name): \(replayed.error)")
    }
  }

  @Test func aRecordingThatCannotBeMadeEndsTheRunWithTheWorkersStopped() throws {
    let scratch = try Scratch()
    let placement = try scratch.file("two.placement", "counter1\ncounter2\n")
    let path = scratch.directory.appendingPathComponent("no-such-directory/run.jsonl").path
    let run = try runBuilt("parent-host", ["--app", "two-counters", "--placement", placement, "--record", path])
    #expect(run.status == 64)
    #expect(run.error.contains("\(path): the recording cannot be created here"))
    let pids = run.output.split(separator: "\n").filter { $0.contains("worker pid") }.compactMap { Int32($0.split(separator: " ").last ?? "") }
    #expect(pids.count == 2 && allExited(pids))
  }

  @Test func anAppWhoseActionsAreNotCodableRecordsButDoesNotReplay() throws {
    let scratch = try Scratch()
    let recording = try scratch.file("shouting.jsonl")
    let recorded = try runBuilt("parent-host", ["--app", "shouting-text", "--record", recording])
    #expect(recorded.status == 0 && recorded.output.contains("can be read but not replayed"))
    let replayed = try runBuilt("parent-host", ["--replay", recording])
    #expect(replayed.status == 64)
    #expect(replayed.error.contains("\(recording):2: the outside action has no \"sent\" encoding"))
  }
}
