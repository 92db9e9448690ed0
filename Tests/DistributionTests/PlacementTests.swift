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
    #expect(try Placement(parsing: "rows pool 1024\n", file: "x").entries.first?.workers == Placement.largestPool)
  }

  @Test(arguments: [
    ("counter1 on worker\n", 1, DistributionError.PlacementProblem.unknownSetting(key: "on", path: "counter1")),
    ("counter1 deadline\n", 1, .missingValue(key: "deadline")),
    ("counter1 deadline 0ms\n", 1, .invalidDuration(key: "deadline", value: "0ms")),
    ("counter1 deadline 1s deadline 2s\n", 1, .setTwice(key: "deadline", path: "counter1")),
    ("counter1\ncounter\u{0}2 pool 2 x\n", 2, .unknownSetting(key: "x", path: "counter\u{0}2")),
    ("rows pool zero\n", 1, .invalidPoolSize("zero")),
    ("rows pool +2\n", 1, .invalidPoolSize("+2")),
    ("rows pool 1025\n", 1, .invalidPoolSize("1025")),
    ("counter1 deadline +2s\n", 1, .invalidDuration(key: "deadline", value: "+2s")),
    ("counter1 deadline 0x10ms\n", 1, .invalidDuration(key: "deadline", value: "0x10ms")),
    ("counter1 startup 1e3ms\n", 1, .invalidDuration(key: "startup", value: "1e3ms")),
    ("counter1 deadline .5s\n", 1, .invalidDuration(key: "deadline", value: ".5s")),
    ("counter1\n\ncounter1\n", 3, .placedTwice(path: "counter1", firstLine: 1)),
  ])
  func malformedFilesSayWhatAndWhere(text: String, line: Int, problem: DistributionError.PlacementProblem) {
    #expect(throws: DistributionError.placement(file: "x.placement", line: line, reason: problem)) {
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
    #expect(throws: DistributionError.placement(file: missing, line: 0, reason: .noFile)) {
      try Placement(contentsOf: missing)
    }
    #expect(throws: DistributionError.placement(file: "/tmp", line: 0, reason: .isDirectory)) {
      try Placement(contentsOf: "/tmp")
    }
    // The words are the contract: a person reads them to fix the file.
    #expect("\(DistributionError.placement(file: "", line: 0, reason: .noFile))" == "(an empty path): there is no placement file at this path")
    #expect(
      "\(DistributionError.placement(file: "x.placement", line: 1, reason: .unknownSetting(key: "on", path: "counter1")))"
        == "x.placement:1: unknown setting \"on\" after \"counter1\"; expected \"pool N\", \"deadline D\", \"startup D\", \"memory SIZE\", \"cpu PERCENT%\" or \"files N\"")
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

  @Test func onlyForEachTakesAPoolAtAnyDepth() throws {
    let pooled = try Placement(parsing: "counter1 pool 2\n", file: "p")
    #expect(throws: DistributionError.placement(file: "p", line: 1, reason: .poolOutsideForEach(path: "counter1", kind: "Scope"))) {
      try pooled.validate(against: TwoCounters().boundaries)
    }
    let inner = try Placement(parsing: "profile\nprofile.avatar pool 2\n", file: "a")
    #expect(
      throws: DistributionError.placement(file: "a", line: 2, reason: .poolOutsideForEach(path: "profile.avatar", kind: "Scope"))
    ) { try inner.validate(against: Account().boundaries) }
  }

  @Test func aBoundaryInsideAPlacedBoundaryCanBePlaced() throws {
    #expect(Account().boundaries.map(\.path) == ["profile", "profile.avatar"])
    for text in ["profile\nprofile.avatar\n", "profile.avatar\nprofile\n", "profile.avatar\n"] {
      try Placement(parsing: text, file: "account.placement").validate(against: Account().boundaries)
    }
  }

  @Test func aNestedPathThatDoesNotExistListsTheBoundariesUnderItsParent() throws {
    let boundaries = [
      BoundaryDescription(path: "profile", kind: .scope, childType: "P"),
      BoundaryDescription(path: "profile.avatar", kind: .scope, childType: "A"),
      BoundaryDescription(path: "profile.avatar.crop", kind: .ifLet, childType: "C"),
      BoundaryDescription(path: "settings", kind: .scope, childType: "S"),
    ]
    let misspelt = try Placement(parsing: "profile\nprofile.avatr\n", file: "p")
    let error = #expect(
      throws: DistributionError.placement(
        file: "p", line: 2,
        reason: .unknownNestedBoundary(path: "profile.avatr", parent: "profile", known: ["profile.avatar", "profile.avatar.crop"]))
    ) { try misspelt.validate(against: boundaries) }
    #expect(
      error?.description
        == "p:2: this app has no boundary \"profile.avatr\"; the boundaries inside \"profile\" are: profile.avatar, profile.avatar.crop")
    let leaf = try Placement(parsing: "settings.theme\n", file: "p")
    #expect(
      throws: DistributionError.placement(
        file: "p", line: 1, reason: .unknownNestedBoundary(path: "settings.theme", parent: "settings", known: []))
    ) { try leaf.validate(against: boundaries) }
  }

  @Test func aBoundaryInsideAPlacedBoundaryThatCannotCrossNamesIt() throws {
    let boundaries = [
      BoundaryDescription(path: "profile", kind: .scope, childType: "P"),
      BoundaryDescription(path: "profile.avatar", kind: .scope, childType: "A"),
    ]
    let placement = try Placement(parsing: "profile.avatar\nprofile\n", file: "p")
    let uncodable = ["profile": "App.Profile.State"]
    let error = #expect(
      throws: DistributionError.placement(
        file: "p", line: 1,
        reason: .insideUncodable(path: "profile.avatar", outer: "profile", outerLine: 2, type: "App.Profile.State"))
    ) { try placement.validate(against: boundaries, uncodable: uncodable) }
    #expect(error?.description.contains("whose App.Profile.State is not Codable") == true)
    // Placed alone, the inner boundary's actions cross in no one else's.
    try Placement(parsing: "profile.avatar\n", file: "p").validate(against: boundaries, uncodable: uncodable)
  }

  @Test func aBoundaryThatCannotBeEncodedIsRefusedBeforeAnyProcessStarts() throws {
    let uncodable = DistributionError.PlacementProblem.notCodable(boundary: "child", type: "DistributionTests.Opaque.Child.State")
    #expect(throws: DistributionError.placement(file: "opaque.placement", line: 1, reason: uncodable)) {
      try Composition(
        root: Opaque(), placement: Placement(parsing: "child\n", file: "opaque.placement"),
        command: WorkerCommand(executable: workerExecutable) { _ in [] })
    }
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
