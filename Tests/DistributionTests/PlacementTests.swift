import Bulkhead
import BulkheadDistribution
import ExampleApps
import Examples
import Foundation
import Testing

@Suite struct PlacementTests {
  @Test func readsBoundariesPoolsAndComments() throws {
    let placement = try Placement(
      parsing: "# a comment\n\ncounter1   # trailing comment\nrows pool 3\n", file: "x.placement")
    #expect(placement.entries == [
      Placement.Entry(path: "counter1", workers: 1, line: 3),
      Placement.Entry(path: "rows", workers: 3, line: 4),
    ])
  }

  @Test(arguments: [
    ("counter1 on worker\n", "x.placement:1: unknown setting \"on\" after \"counter1\"; expected \"pool N\", \"deadline D\" or \"startup D\""),
    ("counter1 deadline\n", "x.placement:1: \"deadline\" needs a value"),
    ("counter1 deadline 0ms\n", "x.placement:1: \"deadline\" must be a duration from 1ms to 600s such as 250ms or 2s, not \"0ms\""),
    ("counter1 deadline 1s deadline 2s\n", "x.placement:1: \"deadline\" is set twice for \"counter1\""),
    ("counter1\ncounter\u{0}2 pool 2 x\n", "x.placement:2: unknown setting \"x\" after \"counter\\u{0}2\"; expected \"pool N\", \"deadline D\" or \"startup D\""),
    ("rows pool zero\n", "x.placement:1: a pool size must be a number from 1 to 64, not \"zero\""),
    ("rows pool +2\n", "x.placement:1: a pool size must be a number from 1 to 64, not \"+2\""),
    ("counter1 deadline +2s\n", "x.placement:1: \"deadline\" must be a duration from 1ms to 600s such as 250ms or 2s, not \"+2s\""),
    ("counter1 deadline 0x10ms\n", "x.placement:1: \"deadline\" must be a duration from 1ms to 600s such as 250ms or 2s, not \"0x10ms\""),
    ("counter1 startup 1e3ms\n", "x.placement:1: \"startup\" must be a duration from 1ms to 600s such as 250ms or 2s, not \"1e3ms\""),
    ("counter1 deadline .5s\n", "x.placement:1: \"deadline\" must be a duration from 1ms to 600s such as 250ms or 2s, not \".5s\""),
    ("counter1\n\ncounter1\n", "x.placement:3: \"counter1\" is placed twice (first on line 1)"),
  ])
  func malformedFilesSayWhatAndWhere(text: String, message: String) {
    #expect(throws: DistributionError.placement(file: "x.placement", line: Int(message.split(separator: ":")[1])!, reason: String(message.split(separator: ": ", maxSplits: 1)[1]))) {
      try Placement(parsing: text, file: "x.placement")
    }
  }

  @Test func readsDeadlinesInMillisecondsOrSeconds() throws {
    let placement = try Placement(
      parsing: "counter1 deadline 250ms\nrows pool 2 startup 1.5s deadline 3s\n", file: "x.placement")
    #expect(placement.entries == [
      Placement.Entry(path: "counter1", deadline: .milliseconds(250), line: 1),
      Placement.Entry(path: "rows", workers: 2, deadline: .seconds(3), startupDeadline: .milliseconds(1_500), line: 2),
    ])
  }

  @Test func windowsLineEndsAndBlankLinesReadAsLines() throws {
    let placement = try Placement(parsing: "# comment\r\ncounter1\r\n\r\ncounter2\r", file: "crlf.placement")
    #expect(placement.entries.map(\.path) == ["counter1", "counter2"])
    #expect(placement.entries.map(\.line) == [2, 4])
  }

  @Test func aFileThatCannotBeReadSaysWhy() throws {
    let missing = "/tmp/bulkhead-no-such-\(getpid()).placement"
    #expect(throws: DistributionError.placement(file: missing, line: 0, reason: "there is no placement file at this path")) {
      try Placement(contentsOf: missing)
    }
    #expect(throws: DistributionError.placement(file: "/tmp", line: 0, reason: "this is a directory, not a placement file")) {
      try Placement(contentsOf: "/tmp")
    }
    #expect(
      "\(DistributionError.placement(file: "", line: 0, reason: "there is no placement file at this path"))"
        == "(an empty path): there is no placement file at this path")
  }

  @Test func onlyLineFeedsAndCarriageReturnsEndALine() throws {
    let placement = try Placement(parsing: "timers\u{2028}pool 2\u{0C}\ntimers2", file: "t")
    #expect(placement.entries.map(\.line) == [1, 2])
    #expect(placement.entries.first?.workers == 2)
  }

  @Test func controlCharactersInAFileAreEscapedInErrors() throws {
    let placement = try Placement(parsing: "counter\u{0}1\u{1b}[31m\n", file: "nul.placement")
    let error = #expect(throws: DistributionError.self) {
      try placement.validate(against: TwoCounters().boundaries)
    }
    let description = try #require(error?.description)
    #expect(description.contains(#""counter\u{0}1\u{1b}[31m""#))
    #expect(!description.unicodeScalars.contains { $0.properties.generalCategory == .control })
  }

  @Test func unknownBoundariesAreNamedWithTheKnownOnes() throws {
    let placement = try Placement(parsing: "counter3\n", file: "two.placement")
    let error = #expect(throws: DistributionError.self) {
      try placement.validate(against: TwoCounters().boundaries)
    }
    #expect(error?.description == "two.placement:1: this app has no boundary \"counter3\"; its boundaries are: counter1, counter2")
  }

  @Test func onlyForEachTakesAPoolAndNothingIsPlacedInsideAPlacedBoundary() throws {
    let pooled = try Placement(parsing: "counter1 pool 2\n", file: "p")
    #expect(throws: DistributionError.placement(file: "p", line: 1, reason: "\"counter1\" is a Scope boundary; only forEach boundaries take a pool")) {
      try pooled.validate(against: TwoCounters().boundaries)
    }
    let nested = [
      BoundaryDescription(path: "profile", kind: .scope, childType: "P"),
      BoundaryDescription(path: "profile.editForm", kind: .ifLet, childType: "E"),
    ]
    let placement = try Placement(parsing: "profile\nprofile.editForm\n", file: "p")
    #expect(throws: DistributionError.self) { try placement.validate(against: nested) }
  }

  @Test func aBoundaryThatCannotBeEncodedIsRefusedBeforeAnyProcessStarts() throws {
    let error = #expect(throws: DistributionError.self) {
      try Composition(
        root: Opaque(), placement: Placement(parsing: "child\n", file: "opaque.placement"),
        command: WorkerCommand(executable: workerExecutable) { _ in [] })
    }
    #expect(error?.description.hasPrefix("opaque.placement:1: The boundary \"child\" cannot run in a worker: \"DistributionTests.Opaque.Child.State\" is not Codable.") == true)
  }
}

@Suite struct BoundaryDiscoveryTests {
  @Test func examplesNameTheirBoundariesByActionCases() {
    #expect(ExampleApp.named("two-counters")?.boundaries.map(\.path) == ["counter1", "counter2"])
    #expect(ExampleApp.named("detail")?.boundaries.map(\.kind) == [.ifLet])
    #expect(ExampleApp.named("onboarding")?.boundaries.map(\.path) == ["_internal.login"])
    #expect(ExampleApp.named("timers")?.boundaries.map(\.description) == ["timers (forEach → Timer)"])
    #expect(ExampleApp.named("shouting-text")?.boundaries.isEmpty == true)
  }
}

/// A feature whose child state cannot cross a process.
struct Opaque: Reducer {
  struct State { var child = Child.State() }
  enum Action: Sendable { case child(Child.Action) }

  struct Child: Reducer {
    struct State { var closure: () -> Void = {} }
    enum Action: Sendable { case tap }
    func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
  }

  var body: some ReducerOf<Self> {
    Scope(state: \.child, action: Action.child) { Child() }
  }
}
