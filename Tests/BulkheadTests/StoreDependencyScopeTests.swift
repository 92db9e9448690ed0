import Bulkhead
import Testing

// A store puts its dependencies in force for each `send` without binding a task local
// (`StoreDependencies`): these check that what a reducer and its effects read is what a
// binding would have given them.

private struct Name: Sendable {
  var text: String
}

private enum NameKey: DependencyKey {
  static let liveValue = Name(text: "live")
}

extension DependencyValues {
  fileprivate var name: Name {
    get { self[NameKey.self] }
    set { self[NameKey.self] = newValue }
  }
}

/// Records the name in force: in the reducer, inside a `withDependencies` there, after it,
/// and in an effect made by the reducer.
private struct Reader: Reducer {
  struct State: Equatable { var read: [String] = [] }
  enum Action: Equatable, Sendable { case read, readInEffect, effectRead(String) }

  /// Sent from inside this reducer, to a store of its own, when set.
  let inner: Store<State, Action>?

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    @Dependency(\.name) var name
    switch action {
    case .read:
      state.read.append(name.text)
      withDependencies { $0.name = Name(text: "scoped") } operation: {
        @Dependency(\.name) var scoped
        state.read.append(scoped.text)
      }
      if let inner {
        // The test runs on the main actor, and so does this reducer, in its store.
        let innerRead = MainActor.assumeIsolated {
          inner.send(.read)
          return inner.state.read
        }
        state.read.append(contentsOf: innerRead)
      }
      state.read.append(name.text)
      return .none
    case .readInEffect:
      return .run { send in
        @Dependency(\.name) var name
        await send(.effectRead(name.text))
      }
    case let .effectRead(text):
      state.read.append(text)
      return .none
    }
  }
}

@MainActor
@Suite struct StoreDependencyScopeTests {
  private func store(named text: String, inner: Store<Reader.State, Reader.Action>? = nil)
    -> Store<Reader.State, Reader.Action>
  {
    Store(initialState: Reader.State()) { Reader(inner: inner) } withDependencies: {
      $0.name = Name(text: text)
    }
  }

  @Test func aReducerSeesItsStoresValuesOverTheCallersAndABindingInsideWins() {
    let store = store(named: "store")
    _ = withDependencies { $0.name = Name(text: "caller") } operation: {
      store.send(.read)
    }
    #expect(store.state.read == ["store", "scoped", "store"])
    @Dependency(\.name) var outside
    #expect(outside.text == "live")
  }

  @Test func aStoreSentToFromAReducerSeesItsOwnValuesAndTheOuterOneAfterIt() {
    let inner = store(named: "inner")
    let outer = store(named: "outer", inner: inner)
    outer.send(.read)
    #expect(inner.state.read == ["inner", "scoped", "inner"])
    #expect(outer.state.read == ["outer", "scoped", "inner", "scoped", "inner", "outer"])
  }

  @Test func anEffectSeesTheValuesOfTheStoreThatMadeIt() async {
    let store = store(named: "store")
    let task = withDependencies { $0.name = Name(text: "caller") } operation: {
      store.send(.readInEffect)
    }
    await task.finish()
    #expect(store.state.read == ["store"])
  }
}
