import Bulkhead
import BulkheadDistribution
import BulkheadTesting
import Examples
import TestThreads
import Testing

/// An async crossing dependency called from a worker that places boundaries of its own (the
/// list of errands), or from one of its inner workers (a row), is answered by the host with
/// the values of the store in force: the host's test clock drives the fake server's latency.
@MainActor
@Suite(.serialized, .onItsOwnThread) struct NestedAsyncCallTests {
  nonisolated static let placements = ["list\nlist.rows\n", "list\nlist.rows pool 2\n"]

  @Test(arguments: placements)
  func theOuterWorkersOwnCallIsAnsweredWhileItHasInnerWorkers(placement: String) async throws {
    let composition = try composition(app: "errands", placement: placement)
    defer { composition.shutdown() }
    let clock = TestClock()
    let store = Self.store(composition, clock)
    var milk = Errands.starters[0]
    milk.isDone = true
    await store.send(.list(.markDone(ids: [0]))) {
      $0.list.rows[id: 0]?.errand.isDone = true
      $0.list.rows[id: 0]?.status = .saving
    }
    let question = ErrandsAPI.Question.save(milk, attempt: 0)
    #expect(!FakeServer.refuses(question))
    await clock.advance(by: FakeServer.latency(of: question))
    milk.revision = 2
    await store.receive(.list(._internal(.markedDone(milk)))) {
      $0.list.rows[id: 0]?.errand.revision = 2
      $0.list.rows[id: 0]?.status = .saved
    }
  }

  /// Two stores, one after the other, on one composition, as the differential test does: the
  /// inner worker's save sleeps on the second store's clock, not on the first's. (The outer
  /// worker's values change with each store's; its inner workers must hear of the change.)
  @Test(arguments: placements)
  func anInnerWorkersCallIsAnsweredWithTheValuesOfTheStoreInForce(placement: String) async throws {
    let composition = try composition(app: "errands", placement: placement)
    defer { composition.shutdown() }
    for _ in 1...2 {
      let clock = TestClock()
      let store = Self.store(composition, clock)
      var milk = Errands.starters[0]
      milk.isDone = true
      await store.send(.list(.rows(.element(id: 0, action: .view(.doneToggled))))) {
        $0.list.rows[id: 0]?.errand.isDone = true
        $0.list.rows[id: 0]?.status = .edited
      }
      await clock.advance(by: ErrandRow.saveDelay)
      await store.receive(.list(.rows(.element(id: 0, action: ._internal(.saveStarted))))) {
        $0.list.rows[id: 0]?.status = .saving
      }
      let question = ErrandsAPI.Question.save(milk, attempt: 0)
      #expect(!FakeServer.refuses(question))
      await clock.advance(by: FakeServer.latency(of: question))
      milk.revision = 2
      await store.receive(.list(.rows(.element(id: 0, action: ._internal(.saved(milk)))))) {
        $0.list.rows[id: 0]?.errand.revision = 2
        $0.list.rows[id: 0]?.status = .saved
      }
    }
  }

  private static func store(_ composition: Composition, _ clock: TestClock) -> TestStore<Errands.State, Errands.Action> {
    TestStore(initialState: Errands.State()) {
      composition.compose(Errands())
    } withDependencies: {
      $0.continuousClock = clock
    }
  }
}
