import Bulkhead
import BulkheadTesting
import Synchronization
import Testing

/// Which way a `Flagged` body goes.
private enum FlagKey: DependencyKey {
  static let liveValue = false
  static let testValue = false
}

extension DependencyValues {
  fileprivate var flag: Bool {
    get { self[FlagKey.self] }
    set { self[FlagKey.self] = newValue }
  }
}

/// A leaf that counts up or down.
private struct Step: Reducer {
  let by: Int
  func reduce(into state: inout Int, action: Bool) -> Effect<Bool> {
    state += by
    return .none
  }
}

/// Plain data and no dependency: its body is the same on every action. It counts its builds
/// in a global, the one input a kept body cannot see (which is why it serves as a probe here).
private struct Plain: Reducer {
  static let builds = Mutex(0)
  var body: some Reducer<Int, Bool> {
    let _ = Self.builds.withLock { $0 += 1 }
    Step(by: 1)
  }
}

/// A body that reads a dependency through `@Dependency`: built under each action's values.
private struct Flagged: Reducer {
  @Dependency(\.flag) var flag
  var body: some Reducer<Int, Bool> {
    if flag { Step(by: 10) } else { Step(by: 1) }
  }
}

/// Plain data, but its body reads a dependency while it is built: kept for no action.
private struct ReadsWhileBuilding: Reducer {
  var body: some Reducer<Int, Bool> {
    if Dependency(\.flag).wrappedValue { Step(by: 10) } else { Step(by: 1) }
  }
}

/// `Plain` one level down, as a feature composes another.
private struct Parent: Reducer {
  struct State: Equatable { var child = 0 }
  enum Action: Equatable, Sendable { case child(Bool) }
  var body: some Reducer<State, Action> {
    Scope(state: \.child, action: Action.child) { Plain() }
  }
}

@MainActor
@Suite(.serialized) struct BuiltBodyTests {
  @Test func aPlainBodyIsBuiltOncePerStoreAtAnyDepth() async {
    Plain.builds.withLock { $0 = 0 }
    let store = TestStore(initialState: Parent.State()) { Parent() }
    await store.send(.child(true)) { $0.child = 1 }
    await store.send(.child(true)) { $0.child = 2 }
    await store.send(.child(true)) { $0.child = 3 }
    #expect(Plain.builds.withLock { $0 } == 1)
  }

  @Test func aBodyThatReadsADependencySeesTheCurrentOne() async {
    let store = TestStore(initialState: 0) { Flagged() }
    await store.send(true) { $0 = 1 }
    store.dependencies.flag = true
    await store.send(true) { $0 = 11 }
    store.dependencies.flag = false
    await store.send(true) { $0 = 12 }
  }

  @Test func aPlainBodyThatReadsADependencyWhileBuiltSeesTheCurrentOne() async {
    let store = TestStore(initialState: 0) { ReadsWhileBuilding() }
    await store.send(true) { $0 = 1 }
    store.dependencies.flag = true
    await store.send(true) { $0 = 11 }
  }

  /// The store's builder meets `ReadsWhileBuilding` before the override is in force: what it
  /// read then must not stay.
  @Test func aBodyBelowADependencyModifierSeesTheOverride() async {
    let store = TestStore(initialState: Parent.State()) {
      CombineReducers {
        Scope(state: \Parent.State.child, action: Parent.Action.child) {
          ReadsWhileBuilding()
          Flagged()
        }
      }
      .dependency(\.flag, true)
    }
    await store.send(.child(true)) { $0.child = 20 }
  }

  @Test func aKeptBodyIsListedAsItsFeature() {
    #expect(Parent().boundaries.map(\.description) == ["child (Scope → Plain)"])
  }
}
