import Foundation
import Bulkhead
import BulkheadTesting
import Testing

/// Records the order in which reducers see an action.
private struct Recorder: Reducer {
  struct State: Equatable, Identifiable {
    var id = 0
    var log: [String] = []
  }
  enum Action: Equatable, Sendable { case ping }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.log.append("child")
    return .none
  }
}

private struct Host: Reducer {
  struct State: Equatable {
    var child: Recorder.State?
    var rows: IdentifiedArrayOf<Recorder.State> = []
    var log: [String] = []
    var changes: [String] = []
  }
  enum Action: Equatable, Sendable {
    case child(Recorder.Action)
    case rows(IdentifiedActionOf<Recorder>)
  }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      state.log.append("parent sees child \(state.child?.log ?? [])")
      if case .child = action, state.child?.log.count == 2 { state.child = nil }
      return .none
    }
    .ifLet(\.child, action: Action.child) { Recorder() }
    .forEach(\.rows, action: Action.rows) { Recorder() }
    .onChange(of: { $0.child?.log.count }) { (old: Int?, new: Int?) in
      Reduce<State, Action> { state, _ in
        state.changes.append("\(describe(old)) → \(describe(new))")
        return .none
      }
    }
  }
}

/// A `forEach` over a property with an observer, which counts the writes.
private struct Observed: Reducer {
  struct State: Equatable {
    var rows: IdentifiedArrayOf<Recorder.State> { didSet { writes += 1 } }
    var writes = 0
  }
  enum Action: Equatable, Sendable {
    case tick
    case rows(IdentifiedActionOf<Recorder>)
  }

  var body: some Reducer<State, Action> {
    Reduce { _, _ in .none }
      .forEach(\.rows, action: Action.rows) { Recorder() }
  }
}

private func describe(_ count: Int?) -> String {
  count.map { "\($0)" } ?? "nil"
}

private enum Screen: Equatable {
  case loading
  case loaded(Recorder.State)
}

private enum ScreenAction: Equatable, Sendable {
  case loaded(Recorder.Action)
}

@MainActor
@Suite struct OperatorTests {
  struct Rows: Reducer {
    struct Row: Equatable, Identifiable { let id: Int; var tally = Tally.State() }
    struct State: Equatable { var rows: IdentifiedArrayOf<Row> }
    enum Action: Sendable { case rows(IdentifiedAction<Int, Tally.Action>) }
    struct Tally: Reducer {
      struct State: Equatable { var count = 0 }
      enum Action: Sendable { case add }
      func reduce(into state: inout State, action: Action) -> Effect<Action> {
        state.count += 1
        return .none
      }
    }
    var body: some Reducer<State, Action> {
      EmptyReducer()
        .forEach(\.rows, action: Action.rows) {
          Scope(state: \Row.tally, action: { $0 }) { Tally() }
        }
    }
  }

  @Test func aScopeThatPassesActionsOnWholeRunsItsChildInEachElement() {
    let store = Store(initialState: Rows.State(rows: [Rows.Row(id: 1), Rows.Row(id: 2)])) { Rows() }
    store.send(.rows(.element(id: 2, action: .add)))
    store.send(.rows(.element(id: 2, action: .add)))
    #expect(store.state.rows.map(\.tally.count) == [0, 2])
  }

  @Test func ifLetRunsTheChildBeforeTheParentAndLetsTheParentDismissIt() {
    let store = Store(initialState: Host.State(child: Recorder.State())) { Host() }
    store.send(.child(.ping))
    #expect(store.state.log == ["parent sees child [\"child\"]"])
    store.send(.child(.ping))
    #expect(store.state.child == nil)
    #expect(store.state.changes == ["0 → 1", "1 → nil"])
  }

  @Test func ifLetWarnsAboutAnActionForANilChildAtItsOwnLine() {
    let store = Store(initialState: Host.State()) { Host() }
    let reported = warnings { store.send(.child(.ping)) }
    #expect(reported.count == 1)
    #expect(reported.first?.message.contains("An \"ifLet\" at") == true)
    #expect(reported.first?.message.contains("received a child action when child state was \"nil\"") == true)
    #expect(reported.first?.location.fileID == "BulkheadTests/OperatorTests.swift")
    #expect(reported.first?.location.line == 37)
  }

  @Test func forEachWarnsAboutAMissingElement() {
    let store = Store(initialState: Host.State(rows: [Recorder.State(id: 1)])) { Host() }
    store.send(.rows(.element(id: 1, action: .ping)))
    #expect(store.state.rows[id: 1]?.log == ["child"])
    let reported = warnings { store.send(.rows(.element(id: 9, action: .ping))) }
    #expect(reported.map(\.location.line) == [38])
    #expect(reported.first?.message.contains("received an action for a missing element") == true)
  }

  @Test func forEachReadsItsElementsWithoutWritingThemBack() {
    let store = Store(initialState: Observed.State(rows: [Recorder.State(id: 1)])) { Observed() }
    store.send(.tick)
    #expect(store.state.writes == 0, "an action for the parent alone writes no element")
    store.send(.rows(.element(id: 1, action: .ping)))
    #expect(store.state.writes == 1, "the element's change, once")
  }

  @Test func ifCaseLetRunsInItsCaseAndWarnsInAnother() {
    let reducer = EmptyReducer<Screen, ScreenAction>()
      .ifCaseLet(Screen.loaded, action: ScreenAction.loaded) { Recorder() }
    var screen = Screen.loaded(Recorder.State())
    _ = reducer.reduce(into: &screen, action: .loaded(.ping))
    #expect(screen == .loaded(Recorder.State(log: ["child"])))
    var loading = Screen.loading
    let reported = warnings { _ = reducer.reduce(into: &loading, action: .loaded(.ping)) }
    #expect(reported.count == 1)
    #expect(reported.first?.message.hasPrefix("An \"ifCaseLet\" at \"BulkheadTests/OperatorTests.swift:") == true)
    #expect(reported.first?.message.contains("set to a different case") == true)
  }

  @Test func scopeOnEnumStateRunsInItsCaseAndWarnsInAnother() {
    let scope = Scope(state: Screen.loaded, action: ScreenAction.loaded) { Recorder() }
    var screen = Screen.loaded(Recorder.State())
    _ = scope.reduce(into: &screen, action: .loaded(.ping))
    #expect(screen == .loaded(Recorder.State(log: ["child"])))
    var loading = Screen.loading
    let reported = warnings { _ = scope.reduce(into: &loading, action: .loaded(.ping)) }
    #expect(reported.count == 1)
    #expect(reported.first?.message.hasPrefix("A \"Scope\" at \"BulkheadTests/OperatorTests.swift:") == true)
    #expect(loading == .loading)
  }

  struct Form: Reducer {
    struct State: Equatable {
      var name = ""
      var validated: [String] = []
    }
    enum Action: Equatable, BindableAction {
      case binding(BindingAction<State>)
    }
    var body: some Reducer<State, Action> {
      BindingReducer()
      Reduce { state, action in
        switch action {
        case .binding(\.name):
          state.validated.append(state.name)
          return .none
        case .binding:
          return .none
        }
      }
    }
  }

  @Test func bindingReducerSetsFieldsBeforeTheFeatureSeesThem() async {
    let store = TestStore(initialState: Form.State()) { Form() }
    await store.send(.binding(.set(\.name, "Blob"))) {
      $0.name = "Blob"
      $0.validated = ["Blob"]
    }
  }

  struct Stamp: Reducer {
    struct State: Equatable { var ids: [UUID] = [] }
    enum Action: Equatable, Sendable { case stamp }
    @Dependency(\.uuid) var uuid
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      state.ids.append(uuid())
      return .none
    }
  }

  @Test func dependenciesAreTestValuesInTestsAndOverridablePerReducer() async {
    let store = TestStore(initialState: Stamp.State()) {
      Stamp().dependency(\.uuid, UUIDGenerator { UUID(uuidString: "DEADBEEF-0000-0000-0000-000000000000")! })
    }
    await store.send(.stamp) { $0.ids = [UUID(uuidString: "DEADBEEF-0000-0000-0000-000000000000")!] }
    let plain = TestStore(initialState: Stamp.State()) { Stamp() }
    await plain.send(.stamp) { $0.ids = [UUID(uuidString: "00000000-0000-0000-0000-000000000000")!] }
    await plain.send(.stamp) { $0.ids.append(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!) }
  }

  @Test func effectsCaptureTheDependenciesOfTheirReducer() async {
    struct Feature: Reducer {
      struct State: Equatable { var date: Date? }
      enum Action: Equatable, Sendable {
        case load
        case loaded(Date)
      }
      @Dependency(\.date) var date
      func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .load: return .run { send in await send(.loaded(date.now)) }
        case let .loaded(date):
          state.date = date
          return .none
        }
      }
    }
    let fixed = Date(timeIntervalSince1970: 1_000)
    let store = TestStore(initialState: Feature.State()) {
      Feature().dependency(\.date, .constant(fixed))
    }
    await store.send(.load)
    await store.receive(.loaded(fixed)) { $0.date = fixed }
  }
}


/// A document that is not `Equatable`: only its id says whether it changed.
private struct Document {
  var id: Int
  var title: String
}

private struct Editor: Reducer {
  struct State { var document = Document(id: 1, title: ""); var opened: [Int] = [] }
  enum Action: Sendable { case rename(String), open(Int) }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case let .rename(title): state.document.title = title
      case let .open(id): state.document = Document(id: id, title: "")
      }
      return .none
    }
    .onChange(of: \.document, removeDuplicates: { $0.id == $1.id }) { _, document in
      Reduce { state, _ in
        state.opened.append(document.id)
        return .none
      }
    }
  }
}

@MainActor
@Suite struct OnChangeTests {
  @Test func removeDuplicatesDecidesWhatCountsAsAChange() {
    let store = Store(initialState: Editor.State()) { Editor() }
    store.send(.rename("Draft"))
    #expect(store.state.opened == [])
    store.send(.open(2))
    #expect(store.state.opened == [2])
  }
}

@MainActor
@Suite struct WarningTextTests {
  @Test func operatorWarningsNameTheBoundaryAndSayHowToFixWithoutTCAisms() {
    let store = Store(initialState: Host.State()) { Host() }
    let reported = warnings {
      store.send(.child(.ping))
      store.send(.rows(.element(id: 9, action: .ping)))
    }
    #expect(reported.count == 2)
    for warning in reported {
      #expect(!warning.message.contains("view store"))
      #expect(!warning.message.contains("SwiftUI"))
      #expect(warning.message.contains("BulkheadTests/OperatorTests.swift:"))
      #expect(warning.message.contains("To fix it"))
    }
    #expect(reported.first?.message.contains("Boundary: child") == true)
    #expect(reported.last?.message.contains("Boundary: rows") == true)
    #expect(reported.last?.message.contains("Element: 9") == true)
  }
}
