import Bulkhead
import Testing

@MainActor
@Suite struct StoreTests {
  struct Chain: Reducer {
    struct State: Equatable { var log: [String] = [] }
    enum Action: Equatable, Sendable {
      case start, a, b, c, d
      case countdown(Int)
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      state.log.append("\(action)")
      switch action {
      case .start: return .merge(.send(.a), .send(.b))
      case .a: return .send(.c)
      case .b: return .send(.d)
      case let .countdown(n): return n > 0 ? .send(.countdown(n - 1)) : .none
      case .c, .d: return .none
      }
    }
  }

  @Test func synchronousSendsRunInTheSamePassFirstInFirstOut() {
    let store = Store(initialState: Chain.State()) { Chain() }
    var commits: [[String]] = []
    store.observe { commits.append($0.log) }
    store.send(.start)
    #expect(store.state.log == ["start", "a", "b", "c", "d"])
    #expect(commits == [["start", "a", "b", "c", "d"]], "one commit per top-level send")
  }

  @Test func aHundredThousandChainedActionsDoNotOverflowTheStack() {
    let store = Store(initialState: Chain.State()) { Chain() }
    store.send(.countdown(100_000))
    #expect(store.state.log.count == 100_001)
  }

  struct Effects: Reducer {
    struct State: Equatable { var received: [Int] = [] }
    enum Action: Equatable, Sendable {
      case concatenated, merged, forever, failing, failingWithCatch
      case received(Int)
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .concatenated:
        return .concatenate(
          .run { send in await send(.received(1)) },
          .send(.received(2)),
          .run { send in await send(.received(3)) })
      case .merged:
        return .merge(.send(.received(1)), .send(.received(2))).map { action in
          if case let .received(n) = action { return .received(n * 10) }
          return action
        }
      case .forever:
        return .run { _ in try await Task.sleep(for: .seconds(3600)) }
      case .failing:
        return .run { _ in throw Failure() }
      case .failingWithCatch:
        return .run { _ in throw Failure() } catch: { _, send in await send(.received(-1)) }
      case let .received(n):
        state.received.append(n)
        return .none
      }
    }
    struct Failure: Error {}
  }

  struct Awaiting: Reducer {
    struct State: Equatable { var log: [String] = [] }
    enum Action: Equatable, Sendable { case start, first, followUp, second }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      state.log.append("\(action)")
      switch action {
      case .start:
        return .run { send in
          await send(.first)
          await send(.second)
        }
      case .first: return .send(.followUp)
      case .followUp, .second: return .none
      }
    }
  }

  @Test func awaitingSendInAnEffectReturnsAfterTheActionAndItsSynchronousFollowUps() async {
    let store = Store(initialState: Awaiting.State()) { Awaiting() }
    await store.send(.start).finish()
    #expect(store.state.log == ["start", "first", "followUp", "second"])
  }

  @Test func concatenatedEffectsRunInOrder() async {
    let store = Store(initialState: Effects.State()) { Effects() }
    await store.send(.concatenated).finish()
    #expect(store.state.received == [1, 2, 3])
  }

  @Test func mapTransformsEveryAction() {
    let store = Store(initialState: Effects.State()) { Effects() }
    store.send(.merged)
    #expect(store.state.received == [10, 20])
  }

  @Test func cancellingTheSendTaskCancelsItsEffects() async {
    let store = Store(initialState: Effects.State()) { Effects() }
    let task = store.send(.forever)
    task.cancel()
    await task.finish()
    #expect(task.isCancelled)
  }

  @Test func unhandledErrorsAreRuntimeWarningsAndCaughtErrorsAreNot() async {
    let log = Log<RuntimeWarning>()
    let store = Store(initialState: Effects.State()) { Effects() }
    await withRuntimeWarningHandler({ log.append($0) }) {
      await store.send(.failing).finish()
      await store.send(.failingWithCatch).finish()
    }
    #expect(log.all.count == 1)
    #expect(log.all.first?.message.contains("threw an unhandled error") == true)
    #expect(log.all.first?.location.fileID.hasSuffix("StoreTests.swift") == true)
    #expect(store.state.received == [-1])
  }

  @Test func droppingTheStoreCancelsItsEffects() async {
    let cancelled = Log<Bool>()
    var store: Store? = Store(initialState: Effects.State()) {
      Reduce<Effects.State, Effects.Action> { _, _ in
        .run { _ in
          do { try await Task.sleep(for: .seconds(3600)) } catch { cancelled.append(true) }
        }
      }
    }
    let task = store!.send(.forever)
    store = nil
    await task.finish()
    #expect(cancelled.all == [true])
  }
}
