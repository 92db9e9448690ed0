@_spi(Testing) import Bulkhead
import BulkheadDistribution
import Examples
import Testing

/// A test clock advanced past an instant where effects in a worker wake, and on to a later one
/// where a host effect wakes: the worker's woken effects' actions reach the host before the
/// clock moves on, as they would in one process — under load too (the worker's executor may
/// go idle while the host's wake-ups are still being handed to the bodies they wake).
@MainActor
@Suite(.serialized) struct WorkerWakeOrderTests {
  @Test func actionsOfEffectsWokenInAWorkerArriveBeforeTheClockMovesOn() async throws {
    let composition = try composition(app: "errands", placement: "list.rows\n")
    defer { composition.shutdown() }
    // Many rows, whose saves wake together: each wake-up the worker takes in is a chance for
    // its executor to go idle before the body it wakes is resumed.
    let errands = (0..<8).map { Errand(id: $0, title: "errand \($0)", revision: 1) }
    let rows = errands.map(\.id)
    // A creation answered 10 ms after the rows' saves wake: sent at `created - latency`.
    let created = ErrandRow.saveDelay + .milliseconds(10)
    let id = Errands.State(errands: errands).list.nextID
    let title = try #require(
      (0..<100).lazy.map { "new errand \($0)" }.first {
        FakeServer.latency(of: .create(id: id, title: $0)) < created
      })
    for trial in 0..<300 {
      let clock = TestClock()
      let executor = EffectExecutor()
      let log = Log<Errands.Action>()
      let store = Store(
        initialState: Errands.State(errands: errands),
        reducer: {
          Reduce<Errands.State, Errands.Action> { _, action in
            log.append(action)
            return .none
          }
          composition.compose(Errands())
        },
        withDependencies: { $0.continuousClock = clock }, effectExecutor: executor)
      // Every row's save waits for the same instant, in the worker, on the host's clock.
      var tasks = rows.map { store.send(.list(.rows(.element(id: $0, action: .view(.titleChanged("trial \(trial)")))))) }
      await executor.waitUntilSettled()
      await clock.advance(to: TestClock.Instant(offset: created - FakeServer.latency(of: .create(id: id, title: title))))
      tasks.append(store.send(.list(.view(.addButtonTapped(title: title)))))
      await executor.waitUntilSettled()
      await clock.advance(to: TestClock.Instant(offset: created))
      await executor.waitUntilSettled()

      let actions = log.all
      let started = actions.indices.filter {
        if case .list(.rows(.element(_, ._internal(.saveStarted)))) = actions[$0] { true } else { false }
      }
      let answered = actions.firstIndex {
        switch $0 {
        case .list(._internal(.created)), .list(._internal(.createFailed)): true
        default: false
        }
      }
      #expect(started.count == rows.count, "trial \(trial): \(actions)")
      #expect(started.allSatisfy { $0 < answered ?? -1 }, "trial \(trial): \(actions)")
      for task in tasks { task.cancel() }
      await executor.waitUntilSettled()
    }
  }
}
