import Bulkhead
import BulkheadDistribution
@testable import BulkheadTools
import ExampleApps
import Examples
import Foundation
import TestThreads
import Testing

/// `Study` with real workers: each placement measured, each fault injected, the table and
/// the HTML report; the report looked at in a real headless browser.
@MainActor
@Suite(.serialized) struct StudyTests {
  private static let app = ExampleApp.named("two-counters")!

  private static func study() async throws -> [StudyRun] {
    try await Study(app: app, command: .executable(workerExecutable, app: app.name), rounds: 3).run()
  }

  @Test func aStudyMeasuresEachPlacementAndWhatEachFaultDid() async throws {
    let runs = try await Self.study()
    let boundaries = Self.app.boundaries.map(\.path)
    #expect(runs.map(\.placement).first == "in the host")
    #expect(runs.count == 1 + 3 * boundaries.count)
    let inHost = try #require(runs.first)
    #expect(inHost.bytesCrossed == 0 && inHost.actions > 0)
    for boundary in boundaries {
      let placed = runs.filter { $0.placed == [boundary] }
      let measured = try #require(placed.first { $0.fault == nil })
      // The same script, the same actions: only where they ran differs.
      #expect(measured.actions == inHost.actions)
      #expect(measured.bytesCrossed > 0)
      #expect(measured.restarts == 0)
      let killed = try #require(placed.first { $0.fault == .kill(boundary: boundary) })
      #expect(killed.faultedWorker == 0)
      #expect(killed.faultAction == max(1, inHost.actions / 3 / 2))
      #expect(killed.restarts >= 1)
      #expect(killed.recovery != nil)
      #expect(killed.moments.contains { $0.kind == .fault })
      let stalled = try #require(placed.first { $0.fault == .stall(boundary: boundary) })
      #expect(stalled.moments.contains { $0.kind == .stall })
      // A stalled worker holds its action up until the boundary's deadline.
      #expect((stalled.recovery ?? .zero) >= .milliseconds(500))
    }
    let table = StudyTable(runs).text
    for run in runs { #expect(table.contains(run.placement)) }
    #expect(table.contains("recovered in"))
    #expect(table.contains("the host process dies"))
    #expect(table.contains("kill counter1 worker 0, action"))
  }

  /// `--live`: one composition, the placements reached by moving boundaries; the same runs,
  /// faults and counts as a study that starts a composition per placement.
  @Test func aLiveStudyMovesTheBoundariesOfOneCompositionAndMeasuresTheSameRuns() async throws {
    let progress = Log<String>()
    let runs = try await Study(app: Self.app, command: .executable(workerExecutable, app: Self.app.name), rounds: 2, live: true)
      .run(progress: progress.append)
    let boundaries = Self.app.boundaries.map(\.path)
    #expect(runs.count == 1 + 3 * boundaries.count)
    let inHost = try #require(runs.first)
    #expect(inHost.placement == "in the host" && inHost.bytesCrossed == 0)
    for boundary in boundaries {
      #expect(progress.all.contains { $0.hasPrefix("  moved \(boundary) to the worker in ") }, "\(progress.all)")
      #expect(progress.all.contains { $0.hasPrefix("  moved \(boundary) to the host in ") })
      let placed = runs.filter { $0.placed == [boundary] }
      let measured = try #require(placed.first { $0.fault == nil })
      #expect(measured.actions == inHost.actions && measured.bytesCrossed > 0)
      let killed = try #require(placed.first { $0.fault == .kill(boundary: boundary) })
      #expect(killed.restarts >= 1 && killed.recovery != nil)
    }
  }

  /// A boundary inside another is studied two deep too: in the outer boundary's worker, and
  /// killed there, where the outer worker restarts it and says so up to the host.
  @Test func aBoundaryInsideAnotherIsStudiedInItsParentsWorkerAndKilledThere() async throws {
    let app = try #require(ExampleApp.named("account"))
    let progress = Log<String>()
    let runs = try await Study(app: app, command: .executable(workerExecutable, app: app.name), rounds: 2).run(progress: progress.append)
    let tree = runs.filter { $0.placed == ["profile", "profile.avatar"] }
    #expect(tree.map(\.placement) == ["profile.avatar in a worker inside profile's", "profile.avatar in a worker inside profile's"])
    let killed = try #require(tree.first { $0.fault == .kill(boundary: "profile.avatar") })
    #expect(killed.faultedWorker == 0)
    #expect(killed.restarts >= 1, "\(killed.moments)")
    #expect(killed.moments.contains { $0.kind == .restart && $0.text.contains("reported by profile's worker, depth 2") })
    #expect(progress.all.last?.hasSuffix("kill profile.avatar at action 2 of 4") == true, "\(progress.all)")
  }

  /// `--fault-at` lands the faults on the action it names; the study says each run as it
  /// starts; a number past the script's last action is refused, naming the range.
  @Test func theFaultLandsOnTheChosenActionAndTheStudySaysEachRunAsItGoes() async throws {
    let progress = Log<String>()
    let runs = try await Study(app: Self.app, command: .executable(workerExecutable, app: Self.app.name), rounds: 1, faultAt: 1)
      .run(progress: progress.append)
    let faulted = runs.filter { $0.fault != nil }
    #expect(!faulted.isEmpty)
    for run in faulted {
      #expect(run.faultAction == 1)
      // The fault lands as the first action starts, before the second.
      let fault = try #require(run.moments.first { $0.kind == .fault })
      #expect(run.starts.count > 1 && run.starts[0] <= fault.offset && fault.offset < run.starts[1])
      #expect(fault.text.contains("worker 0 (pid "))
    }
    let total = 1 + 3 * Self.app.boundaries.count
    #expect(progress.all.first == "[1/\(total)] every boundary in the host, the script 1 time(s)")
    #expect(progress.all.contains { $0.hasPrefix("[\(total)/\(total)] stall ") && $0.hasSuffix("at action 1 of \(runs[0].actions)") })
    await #expect {
      try await Study(app: Self.app, command: .executable(workerExecutable, app: Self.app.name), rounds: 1, faultAt: 999).run()
    } throws: { error in
      "\(error)".contains("--fault-at 999: one pass of two-counters's script runs \(runs[0].actions) action(s); choose one from 1 to")
    }
  }

  @Test func theReportIsOnePageWithNothingFromElsewhere() async throws {
    let html = StudyReport(app: "two-counters", runs: try await Self.study()).html
    #expect(html.hasPrefix("<!DOCTYPE html>"))
    #expect(html.contains("the host process dies"))
    #expect(html.components(separatedBy: "<svg").count - 1 >= 5)
    for outside in ["<script", "src=", "href=", "@import", "url("] { #expect(!html.contains(outside), "\(outside)") }
    #expect(StudyReport.init(app: "<b>&", runs: []).html.contains("&lt;b&gt;&amp;"))
    #expect(html.contains("share of actions at or below each latency"))
    #expect(html.contains("Faults were injected at action"))
    #expect(StudyReport.keepingUnits("recovered in 11.5 ms, 3 B, 2 effect(s)") == "recovered in 11.5\u{a0}ms, 3\u{a0}B, 2 effect(s)")
  }

  @Test(arguments: [(1.0, 1.0), (7.0, 2.0), (30.0, 5.0), (59.0, 10.0), (1_000_000.0, 200_000.0), (1_234_567.0, 500_000.0)])
  func timelineTicksCutTheSpanIntoAtMostSixRoundSteps(span: Double, step: Double) {
    #expect(StudyReport.tickStep(span: span) == step)
  }

  /// Debian's `chromium` renders the report; `.ci/run` installs it, and sets
  /// `BULKHEAD_REQUIRE_BROWSER` so that there a missing browser fails instead of skipping.
  @Test(.enabled(if: Self.browser != nil || ProcessInfo.processInfo.environment["BULKHEAD_REQUIRE_BROWSER"] != nil))
  func theReportShowsItsChartsInARealBrowser() async throws {
    let browser = try #require(Self.browser, "no chromium on PATH: install Debian's chromium")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("study-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let page = directory.appendingPathComponent("study.html")
    try StudyReport(app: "two-counters", runs: try await Self.study()).html.write(to: page, atomically: true, encoding: .utf8)
    // The browser and the pixel counts take seconds: not on the main actor, which every
    // @MainActor test of the process shares.
    try await onOwnThread { @Sendable in try Self.checkScreenshot(of: page, by: browser, in: directory) }
  }

  /// Has `browser` draw `page` and checks the picture it took for the charts' colours.
  nonisolated private static func checkScreenshot(of page: URL, by browser: URL, in directory: URL) throws {
    let picture = directory.appendingPathComponent("study.png")
    let chromium = Process()
    chromium.executableURL = browser
    chromium.arguments = [
      "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=\(directory.path)/profile",
      "--window-size=1300,2400", "--screenshot=\(picture.path)", page.absoluteString,
    ]
    chromium.standardOutput = FileHandle.nullDevice
    chromium.standardError = FileHandle.nullDevice
    try chromium.run()
    chromium.waitUntilExit()
    #expect(chromium.terminationStatus == 0)
    let image = try PNGImage(contentsOf: picture.path)
    #expect(image.width == 1300)
    // The charts' colours: latency bars, bytes bars, the fault lines, the restart dots.
    #expect(image.count(red: 0x3b, green: 0x7d, blue: 0xd8) > 500, "no latency bars")
    #expect(image.count(red: 0x5a, green: 0xa4, blue: 0x69) > 500, "no bytes bars")
    #expect(image.count(red: 0xd6, green: 0x27, blue: 0x28) > 50, "no fault lines")
    #expect(image.count(red: 0x2c, green: 0xa0, blue: 0x2c) > 50, "no restarts")
    // The distributions compared on one chart: the first two placements' lines.
    #expect(image.count(red: 0x1f, green: 0x77, blue: 0xb4) > 200, "no distribution of the first placement")
    #expect(image.count(red: 0xe6, green: 0x55, blue: 0x0d) > 200, "no distribution of the second placement")
  }

  nonisolated private static let browser: URL? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].lazy
    .map(URL.init(fileURLWithPath:)).first { FileManager.default.isExecutableFile(atPath: $0.path) }
}

/// What the study's command line refuses before it runs anything.
@Suite(.onItsOwnThread) struct StudyCommandLineTests {
  @Test func anAppWithoutBoundariesOrAReportThatCannotBeWrittenIsRefusedAtOnce() throws {
    let none = try runBuilt("parent-host", ["--study", "shouting-text"])
    #expect(none.status == 64)
    #expect(none.error.contains("shouting-text has no boundaries to study"))
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-folder-\(UUID().uuidString)")
    let unwritable = try runBuilt("parent-host", ["--study", "two-counters", "--report", folder.appendingPathComponent("r.html").path])
    #expect(unwritable.status == 64)
    #expect(unwritable.error.contains("cannot write the report to"))
    // Refused before the study ran: no worker was started, so nothing was printed.
    #expect(!unwritable.output.contains("placement"))
  }
}
