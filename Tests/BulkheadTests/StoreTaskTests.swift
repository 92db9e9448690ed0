import Bulkhead
import Testing

/// `.start` runs an effect that sends `.spawn`, whose own effect runs until cancelled; each
/// effect logs its cancellation.
private struct Cascade: Reducer {
  struct State: Equatable { var spawned = false }
  enum Action: Equatable, Sendable { case start, spawn }
  let log: Log<String>
  let spawnSent: AsyncStream<Void>.Continuation

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .start:
      return .run { [log, spawnSent] send in
        await send(.spawn)
        spawnSent.yield()
        await waitForCancellation(logging: "start's effect", to: log)
      }
    case .spawn:
      state.spawned = true
      return .run { [log] _ in await waitForCancellation(logging: "spawn's effect", to: log) }
    }
  }
}

/// Sleeps until the task is cancelled, then logs `name`.
private func waitForCancellation(logging name: String, to log: Log<String>) async {
  let (never, _) = AsyncStream<Void>.makeStream()
  await withTaskCancellationHandler {
    for await _ in never {}
  } onCancel: {
    log.append(name)
  }
}

@MainActor
@Suite struct StoreTaskTests {
  @Test func cancellingASendsTaskCancelsTheEffectsItsEffectsActionsStarted() async {
    let log = Log<String>()
    let (spawnSent, continuation) = AsyncStream<Void>.makeStream()
    let store = Store(initialState: Cascade.State()) {
      Cascade(log: log, spawnSent: continuation)
    }
    let task = store.send(.start)
    for await _ in spawnSent { break }
    #expect(store.state.spawned)
    task.cancel()
    await task.finish()
    #expect(Set(log.all) == ["start's effect", "spawn's effect"])
    #expect(task.isCancelled)
  }

  @Test func cancellingTheTaskAwaitingFinishCancelsTheEffects() async {
    let log = Log<String>()
    let (spawnSent, continuation) = AsyncStream<Void>.makeStream()
    let store = Store(initialState: Cascade.State()) {
      Cascade(log: log, spawnSent: continuation)
    }
    let task = store.send(.start)
    for await _ in spawnSent { break }
    let waiter = Task { await task.finish() }
    waiter.cancel()
    await waiter.value
    #expect(Set(log.all) == ["start's effect", "spawn's effect"])
  }

  @Test func anActionThatStartsNoEffectReturnsAFinishedTask() async {
    let store = Store(initialState: Cascade.State()) {
      Cascade(log: Log(), spawnSent: AsyncStream<Void>.makeStream().continuation)
    }
    let task = store.send(.spawn)
    #expect(task.isCancelled == false)
    task.cancel()
    await task.finish()
  }
}
