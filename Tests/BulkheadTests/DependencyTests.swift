import Bulkhead
import BulkheadTesting
import Synchronization
import Testing

/// A client whose key has only a live value: a test must override it before using it.
private struct Greeting: Sendable {
  var text: @Sendable () -> String
}

private enum GreetingKey: DependencyKey {
  static let liveValue = Greeting { "live" }
}

extension DependencyValues {
  fileprivate var greeting: Greeting {
    get { self[GreetingKey.self] }
    set { self[GreetingKey.self] = newValue }
  }
}

private struct Greeter: Reducer {
  struct State: Equatable { var said: [String] = [] }
  enum Action: Equatable, Sendable { case greet }
  @Dependency(\.greeting) var greeting
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.said.append(greeting.text())
    return .none
  }
}

/// Greets, once at the parent and once in a child overridden with `.dependency`.
private struct Lounge: Reducer {
  struct State: Equatable {
    var host = Greeter.State()
    var guest = Greeter.State()
  }
  enum Action: Equatable, Sendable {
    case host(Greeter.Action)
    case guest(Greeter.Action)
  }
  var body: some Reducer<State, Action> {
    Scope(state: \.guest, action: Action.guest) {
      Greeter().dependency(\.greeting, Greeting { "overridden" })
    }
    Scope(state: \.host, action: Action.host) { Greeter() }
  }
}

private let hasNoTestValue = "has no test value, and a test used it"

/// A key whose live value is made anew on each request, counting how often.
private enum CountedKey: DependencyKey {
  static let made = Mutex(0)
  static var liveValue: Int {
    made.withLock { $0 += 1 }
    return 0
  }
}

extension DependencyValues {
  fileprivate var counted: Int {
    get { self[CountedKey.self] }
    set { self[CountedKey.self] = newValue }
  }
}

private struct Reader: Reducer {
  struct State: Equatable { var read: [Int] = [] }
  enum Action: Equatable, Sendable { case read }
  @Dependency(\.counted) var counted
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.read.append(counted)
    return .none
  }
}

@MainActor
@Suite struct DependencyTests {
  @Test func overridingAKeyWithOnlyALiveValueByKeyPathIsNoUseOfItsDefault() async {
    let store = TestStore(initialState: Greeter.State()) {
      Greeter().dependency(\.greeting, Greeting { "overridden" })
    }
    await store.send(.greet) { $0.said = ["overridden"] }
  }

  @Test func overridingAKeyWithOnlyALiveValueInWithDependenciesIsNoUseOfItsDefault() {
    let keyPath: WritableKeyPath<DependencyValues, Greeting> & Sendable = \.greeting
    var said: [String] = []
    let reported = warnings {
      withDependencies {
        $0.context = .test
      } operation: {
        withDependencies { $0[keyPath: keyPath] = Greeting { "by key path" } } operation: {
          said.append(DependencyValues.current.greeting.text())
        }
        withDependencies { $0.greeting = Greeting { "by property" } } operation: {
          said.append(DependencyValues.current.greeting.text())
        }
      }
    }
    #expect(said == ["by key path", "by property"])
    #expect(reported.map(\.message) == [])
  }

  @Test func overridingAKeyWithOnlyALiveValueInTheTestStoreIsNoUseOfItsDefault() async {
    let keyPath: WritableKeyPath<DependencyValues, Greeting> & Sendable = \.greeting
    let store = TestStore(initialState: Greeter.State()) { Greeter() } withDependencies: {
      $0[keyPath: keyPath] = Greeting { "overridden" }
    }
    await store.send(.greet) { $0.said = ["overridden"] }
  }

  /// The default a key-path assignment reads is made once per store, not on every action.
  @Test func anOverrideByKeyPathMakesTheDefaultOnce() async {
    let store = TestStore(initialState: Reader.State()) { Reader().dependency(\.counted, 7) }
    let before = CountedKey.made.withLock { $0 }
    await store.send(.read) { $0.read = [7] }
    await store.send(.read) { $0.read = [7, 7] }
    await store.send(.read) { $0.read = [7, 7, 7] }
    #expect(CountedKey.made.withLock { $0 } - before == 1)
  }

  @Test func aDefaultReadInATestStillFailsIt() async {
    let store = TestStore(initialState: Greeter.State()) { Greeter() }
    await withKnownIssue {
      await store.send(.greet) { $0.said = ["live"] }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains(hasNoTestValue) && $0.rawValue.contains("GreetingKey") }
    }
  }

  /// A default read while the store is set up is the test's too, though no step ran yet.
  @Test func aDefaultReadInTheTestStoresSetupFailsTheTestOnce() async {
    let issues = Log<String>()
    await withKnownIssue {
      let store = TestStore(initialState: Greeter.State()) { Greeter() } withDependencies: {
        $0.uuid = .incrementing
        _ = $0.greeting
      }
      await store.send(.greet) { $0.said = ["live"] }
    } matching: { issue in
      issues.append("\(issue)")
      return issue.comments.contains { $0.rawValue.contains(hasNoTestValue) }
    }
    #expect(issues.all.count == 1)
  }

  /// The child's override read the parent's default on the way; the parent's own read later
  /// is a use all the same.
  @Test func aDefaultReadBesideAnOverrideStillFailsTheTest() async {
    let store = TestStore(initialState: Lounge.State()) { Lounge() }
    await store.send(.guest(.greet)) { $0.guest.said = ["overridden"] }
    await withKnownIssue {
      await store.send(.host(.greet)) { $0.host.said = ["live"] }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains(hasNoTestValue) }
    }
  }

  @Test func aDefaultReadWhileSettingOthersStillCounts() {
    var said: [String] = []
    let reported = warnings {
      withDependencies {
        $0.context = .test
      } operation: {
        withDependencies {
          said.append($0.greeting.text())
          $0.uuid = .incrementing
        } operation: {
          // The same default, made once: no second warning.
          said.append(DependencyValues.current.greeting.text())
        }
      }
    }
    #expect(said == ["live", "live"])
    #expect(reported.count == 1)
    #expect(reported.first?.message.contains(hasNoTestValue) == true)
  }

  /// A worker sets the host's answers of each header it adopts; a worker that places workers
  /// of its own tells them of its values by revision, so each header must make a new one.
  @Test func theHostsAnswersOfEachHeaderMakeANewRevision() {
    var values = DependencyValues()
    let before = values.revision
    values.host = NoAnswers()
    let first = values.revision
    values.host = NoAnswers()
    #expect(first != before)
    #expect(values.revision != first)
  }
}

/// The host's answers of some header, answering for no key.
private struct NoAnswers: HostAnsweredValues {
  func value<Key: DependencyKey>(for key: Key.Type) -> Key.Value? { nil }
}
