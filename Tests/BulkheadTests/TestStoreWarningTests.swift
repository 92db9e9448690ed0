import Bulkhead
import BulkheadTesting
import Testing

private struct Child: Reducer {
  struct State: Equatable {}
  enum Action: Equatable, Sendable { case ping }
  func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
}

/// Effects whose `send` outlives them: kept for the test to call, or used by a detached task
/// once `release` finishes.
private struct Keeper: Reducer {
  struct State: Equatable {
    var log: [String] = []
    var child: Child.State?
  }
  enum Action: Equatable, Sendable {
    case keep
    case escape
    case late
    case failLater
    case child(Child.Action)
  }
  struct Failure: Error {}
  let kept: Log<Send<Action>>
  let release: AsyncStream<Void>
  let escaped: Log<Task<Void, Never>>
  @Dependency(\.continuousClock) var clock

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .keep:
        return .run { [kept] send in kept.append(send) }
      case .escape:
        return .run { [release, escaped] send in
          escaped.append(
            Task.detached {
              for await _ in release {}
              await send(.late)
            })
        }
      case .failLater:
        return .run { [clock] _ in
          try await clock.sleep(for: .seconds(1))
          throw Failure()
        }
      case .late:
        state.log.append("late")
        return .none
      case .child:
        return .none
      }
    }
    .ifLet(\.child, action: Action.child) { Child() }
  }
}

private let sentLate = "sent an action after its body had returned"

@MainActor
@Suite struct TestStoreWarningTests {
  @Test func aKeptSendUsedAfterItsEffectReturnedFailsTheTestAtTheStepThatStartedIt() async {
    let kept = Log<Send<Keeper.Action>>()
    let store = TestStore(initialState: Keeper.State()) {
      Keeper(kept: kept, release: AsyncStream.makeStream().stream, escaped: Log())
    }
    let keepLine = #line + 1
    await store.send(.keep)
    await withKnownIssue {
      await kept.all[0](.late)
      await store.receive(.late) { $0.log = ["late"] }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains(sentLate) }
        && issue.sourceLocation?.line == keepLine
    }
  }

  @Test func aSendFromADetachedTaskAfterItsEffectReturnedFailsTheTest() async {
    let (release, releasing) = AsyncStream<Void>.makeStream()
    let escaped = Log<Task<Void, Never>>()
    let store = TestStore(initialState: Keeper.State()) {
      Keeper(kept: Log(), release: release, escaped: escaped)
    }
    await store.send(.escape)
    await withKnownIssue {
      releasing.finish()
      for task in escaped.all { await task.value }
      await store.receive(.late) { $0.log = ["late"] }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains(sentLate) }
    }
  }

  /// A warning raised in a task of the test (an effect it started) fails the test at once,
  /// where the effect was started, rather than at the test's next step.
  @Test func aWarningRaisedInTheTestsOwnTasksFailsItAtOnce() async {
    let clock = TestClock()
    let store = TestStore(initialState: Keeper.State()) {
      Keeper(kept: Log(), release: AsyncStream.makeStream().stream, escaped: Log())
    } withDependencies: {
      $0.continuousClock = clock
    }
    await withKnownIssue {
      await store.send(.failLater)
      await clock.advance(by: .seconds(1))
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("threw an unhandled error") }
    }
    await store.finish()
  }

  /// The store processes a late action outside any step of the test: the operator's warning
  /// about it is the test's all the same.
  @Test func warningsWhileProcessingALateActionFailTheTest() async {
    let kept = Log<Send<Keeper.Action>>()
    let store = TestStore(initialState: Keeper.State()) {
      Keeper(kept: kept, release: AsyncStream.makeStream().stream, escaped: Log())
    }
    await store.send(.keep)
    let reported = Log<String>()
    await withKnownIssue {
      await kept.all[0](.child(.ping))
      await store.receive(.child(.ping))
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      reported.append(text)
      return text.contains(sentLate) || text.contains("child state was \"nil\"")
    }
    #expect(reported.all.count == 2)
    #expect(reported.all.contains { $0.contains("child state was \"nil\"") })
  }
}
