import Bulkhead
import BulkheadTesting
import Foundation
import Testing

/// A screen that counts, runs a timer, and can pop itself from an effect.
private struct Screen: Reducer {
  struct State: Equatable, Codable, Sendable {
    var name: String
    var ticks = 0
  }
  enum Action: Equatable, Codable, Sendable { case tick, start, close }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.dismiss) var dismiss

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .tick:
      state.ticks += 1
      return .none
    case .start:
      return .run { send in
        while true {
          try await clock.sleep(for: .seconds(1))
          await send(.tick)
        }
      }
    case .close:
      return .run { _ in await dismiss() }
    }
  }
}

private struct Navigator: Reducer {
  struct State: Equatable {
    var path = StackState<Screen.State>()
    var log: [String] = []
  }
  enum Action: Equatable, Sendable {
    case path(StackActionOf<Screen>)
    case open(String)
    case closeAllBehindTheStacksBack
  }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case let .path(.element(id, .tick)):
        state.log.append("parent sees \(id) at \(state.path[id: id]?.ticks ?? -1) ticks")
      case let .path(.popFrom(id)):
        state.log.append("parent sees \(state.path.ids) popping from \(id)")
      case let .path(.push(id, _)):
        state.log.append("parent sees \(id) pushed: \(state.path.ids)")
      case .path:
        break
      case let .open(name):
        state.path.append(Screen.State(name: name))
      case .closeAllBehindTheStacksBack:
        break
      }
      return .none
    }
    .forEach(\.path, action: Action.path) { Screen() }
  }
}

/// The navigator with a reducer after the `forEach` that empties the stack behind its back.
private struct OuterClearer: Reducer {
  var body: some Reducer<Navigator.State, Navigator.Action> {
    Navigator()
    Reduce { state, action in
      if action == .closeAllBehindTheStacksBack { state.path.removeAll() }
      return .none
    }
  }
}

@MainActor
@Suite struct StackTests {
  @Test func anElementRunsBeforeTheParent() async {
    let store = TestStore(initialState: Navigator.State(path: [Screen.State(name: "a")])) { Navigator() }
    await store.send(.path(.element(id: 0, action: .tick))) {
      $0.path[id: 0]?.ticks = 1
      $0.log = ["parent sees #0 at 1 ticks"]
    }
  }

  @Test func popFromRunsTheParentFirstThenPopsTheElementAndEverythingAbove() async {
    let store = TestStore(initialState: Navigator.State()) { Navigator() }
    await store.send(.open("a")) { $0.path.append(Screen.State(name: "a")) }
    await store.send(.open("b")) { $0.path.append(Screen.State(name: "b")) }
    await store.send(.open("c")) { $0.path.append(Screen.State(name: "c")) }
    await store.send(.path(.popFrom(id: 1))) {
      $0.path.pop(from: 1)
      $0.log = ["parent sees [#0, #1, #2] popping from #1"]
    }
    #expect(store.state.path.ids == [0])
  }

  @Test func pushAddsTheElementBeforeTheParentRuns() async {
    let store = TestStore(initialState: Navigator.State()) { Navigator() }
    await store.send(.path(.push(id: 0, state: Screen.State(name: "a")))) {
      $0.path.append(Screen.State(name: "a"))
      $0.log = ["parent sees #0 pushed: [#0]"]
    }
  }

  @Test func aPushIsAssertedByAssigningAtTheIdItGets() async {
    let store = TestStore(initialState: Navigator.State()) { Navigator() }
    await store.send(.open("a")) { $0.path[id: 0] = Screen.State(name: "a") }
    await store.send(.open("b")) { $0.path[id: 1] = Screen.State(name: "b") }
    await store.send(.path(.popFrom(id: 1))) {
      $0.path[id: 1] = nil
      $0.log = ["parent sees [#0, #1] popping from #1"]
    }
    // The next push gets #2, not the popped #1: an assertion at #1 fails with both ids shown.
    await expectFailure(containing: ["A state change does not match expectation", "#1", "#2"]) {
      await store.send(.open("c")) { $0.path[id: 1] = Screen.State(name: "c") }
    }
    #expect(store.state.path.ids == [0, 2])
  }

  @Test func assigningAtAnIdTheStackDoesNotHoldPushesTheElementWithThatId() {
    var path = StackState<String>()
    let reported = warnings {
      path[id: 0] = "a"
      #expect(path == ["a"])
      #expect(path.nextID == 1)
      // A later id skips the ones between; the next id follows it.
      path[id: 5] = "b"
      #expect(path.ids == [0, 5])
      #expect(path.nextID == 6)
      path.append("c")
      #expect(path.ids == [0, 5, 6])
      // A lower id goes on top too, as a `push` action with it does; the next id stays beyond
      // every id held.
      path[id: 2] = "d"
      #expect(path.ids == [0, 5, 6, 2])
      #expect(path.last == "d")
      #expect(path.nextID == 7)
      path.append("e")
      #expect(path.ids == [0, 5, 6, 2, 7])
      path[id: 9] = nil
      #expect(path.ids == [0, 5, 6, 2, 7])
    }
    #expect(reported.isEmpty)
  }

  /// As in TCA, where a test asserts a pop by assigning what is left (`$0.path = []`): equal
  /// stacks may still push under different ids. A placed boundary does not take equality for
  /// sameness across stores (`RemoteErrandsTests`).
  @Test func stacksAreEqualByTheirIdsAndElementsWhateverIdTheyPushNext() {
    var popped = StackState<String>(["a"])
    popped.pop(from: 0)
    #expect(popped == StackState<String>())
    #expect(popped.nextID == 1)
    #expect(StackState<String>().nextID == 0)
  }

  @Test func theLastIdThereIsIsNeitherAssignedNorPushed() {
    var path: StackState<String> = ["a"]
    let last = StackElementID(generation: .max)
    let assigned = warnings { path[id: last] = "b" }
    #expect(assigned.count == 1)
    #expect(assigned.first?.message.contains("An element was assigned at \(last), the last id there is") == true)
    #expect(assigned.first?.location.fileID == "BulkheadTests/StackTests.swift")
    #expect(path == ["a"])
    #expect(path.nextID == 1)
    let store = Store(initialState: Navigator.State()) { Navigator() }
    let pushed = warnings { store.send(.path(.push(id: last, state: Screen.State(name: "b")))) }
    #expect(pushed.first?.message.contains("received a \"push\" action for the last id there is") == true)
    #expect(store.state.path.isEmpty)
    #expect(store.state.path.nextID == 0)
  }

  /// A warning raised by the expected state's own code, in an assertion closure, is the
  /// test's failure too, not a line on standard error.
  @Test func aWarningRaisedInAnAssertionClosureFailsTheTest() async {
    let store = TestStore(initialState: Navigator.State()) { Navigator() }
    await expectFailure(containing: ["the last id there is"]) {
      await store.send(.open("a")) {
        $0.path[id: 0] = Screen.State(name: "a")
        $0.path[id: StackElementID(generation: .max)] = Screen.State(name: "b")
      }
    }
  }

  @Test func idsAreGenerationalAndNeverReused() {
    var path = StackState<String>()
    path.append("a")
    path.append("b")
    path.removeAll()
    path.append("c")
    #expect(path.ids == [2])
    #expect(path[id: 2] == "c")
    #expect(path[id: 0] == nil)
    #expect(path.nextID == 3)
    path.append(contentsOf: ["d", "e"])
    path.pop(to: 3)
    #expect(path.ids == [2, 3])
    path[id: 2] = nil
    #expect(Array(path) == ["d"])
    path.append(contentsOf: ["f", "g"])
    path.removeAll { $0 == "f" }
    #expect(path.ids == [3, 6])
  }

  @Test func poppingCancelsTheEffectsOfEveryPoppedElementAndNoOther() async {
    let clock = TestClock()
    let store = TestStore(initialState: Navigator.State()) { Navigator() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.open("a")) { $0.path.append(Screen.State(name: "a")) }
    await store.send(.open("b")) { $0.path.append(Screen.State(name: "b")) }
    await store.send(.open("c")) { $0.path.append(Screen.State(name: "c")) }
    for id: StackElementID in [0, 1, 2] { await store.send(.path(.element(id: id, action: .start))) }
    await store.send(.path(.popFrom(id: 1))) {
      $0.path.pop(from: 1)
      $0.log = ["parent sees [#0, #1, #2] popping from #1"]
    }
    await clock.advance(by: .seconds(1))
    await store.receive(.path(.element(id: 0, action: .tick))) {
      $0.path[id: 0]?.ticks = 1
      $0.log.append("parent sees #0 at 1 ticks")
    }
    await store.send(.path(.popFrom(id: 0))) {
      $0.path = []
      $0.log.append("parent sees [#0] popping from #0")
    }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func dismissInsideAnElementPopsIt() async {
    let store = TestStore(initialState: Navigator.State()) { Navigator() }
    await store.send(.open("a")) { $0.path.append(Screen.State(name: "a")) }
    await store.send(.open("b")) { $0.path.append(Screen.State(name: "b")) }
    await store.send(.path(.element(id: 0, action: .close)))
    await store.receive(.path(.popFrom(id: 0))) {
      $0.path = []
      $0.log = ["parent sees [#0, #1] popping from #0"]
    }
    await store.finish()
  }

  @Test func elementsRemovedByAnotherReducerHaveTheirEffectsCancelledAtTheNextAction() async {
    let clock = TestClock()
    let store = TestStore(initialState: Navigator.State()) { OuterClearer() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.open("a")) { $0.path.append(Screen.State(name: "a")) }
    await store.send(.path(.element(id: 0, action: .start)))
    await store.send(.closeAllBehindTheStacksBack) { $0.path = [] }
    await store.send(.open("b")) { $0.path.append(Screen.State(name: "b")) }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func actionsForIdsTheStackDoesNotHoldAreWarnings() {
    let store = Store(initialState: Navigator.State(path: [Screen.State(name: "a")])) { Navigator() }
    let missing = warnings { store.send(.path(.element(id: 5, action: .tick))) }
    let pop = warnings { store.send(.path(.popFrom(id: 5))) }
    let push = warnings { store.send(.path(.push(id: 0, state: Screen.State(name: "again")))) }
    #expect(missing.first?.message.contains("received an action for a missing element") == true)
    #expect(pop.first?.message.contains("received a \"popFrom\" action for a missing element") == true)
    #expect(push.first?.message.contains("received a \"push\" action for an element it already contains") == true)
    for warning in missing + pop + push {
      #expect(warning.location.fileID == "BulkheadTests/StackTests.swift")
      #expect(warning.location.line == 64)
    }
    #expect(store.state.path.ids == [0])
    #expect(store.state.path.first?.name == "a")
  }

  @Test func aPushThatSkipsIdsIsAWarningInTests() {
    let store = Store(initialState: Navigator.State()) { Navigator() } withDependencies: {
      $0.context = .test
    }
    let reported = warnings { store.send(.path(.push(id: 4, state: Screen.State(name: "a")))) }
    #expect(reported.first?.message.contains("received a \"push\" action with an unexpected generational ID") == true)
    #expect(store.state.path.ids == [4])
    #expect(store.state.path.nextID == 5)
  }

  @Test func aStackEncodesItsIdsAndNextID() throws {
    var path: StackState<String> = ["a", "b", "c"]
    path.pop(from: 1)
    let decoded = try JSONDecoder().decode(StackState<String>.self, from: JSONEncoder().encode(path))
    #expect(decoded == path)
    #expect(decoded.nextID == 3)
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(StackState<String>.self, from: Data(#"{"ids":[0,0],"elements":["a","b"],"next":2}"#.utf8))
    }
  }
}
