import Bulkhead
import BulkheadDistribution
import Examples
import Foundation
import Testing
import Transport

/// The warm pool with real processes: presentations claim idle workers, replacements start
/// in the background, idle workers killed are replaced, a boundary moved to the host and back
/// draws from it again, and no process is left. The host's descriptors are counted exactly in
/// a process of its own (`SoakTests`, `bulkhead-soak presentations`), where no other test's
/// blur the count.
@MainActor @Suite struct WarmPoolTests {
  @Test func presentingClaimsWarmWorkersAndKilledIdleOnesAreReplaced() throws {
    let composition = try composition(app: "notes", placement: "destination\nwarm 2\n")
    let store = Store(initialState: Notes.State()) { composition.compose(Notes()) }
    #expect(composition.waitForWarmPool())
    #expect(composition.warmPIDs.count == 2)
    // A destination drawing from the pool holds no worker until presented.
    #expect(composition.processes.first?.pids == [])
    var seen: Set<Int32> = []
    for round in 0..<60 {
      #expect(composition.waitForWarmPool())
      // Killed idle workers are found dead by the claim (or by their exit, whichever is first):
      // the presentation gets a replacement, or a worker of its own, never a dead one.
      let killed = round % 10 == 5
      if killed { for pid in composition.warmPIDs { kill(pid, SIGKILL) } }
      let idle = killed ? [] : composition.warmPIDs
      seen.formUnion(idle)
      store.send(.addButtonTapped)
      store.send(.destination(.presented(.editor(.titleChanged("note \(round)")))))
      let serving = try #require(composition.processes.first?.pids.first)
      // A claimed worker was idle in the pool, and serves one presentation only.
      #expect(killed || idle.contains(serving))
      #expect(!killed || !seen.contains(serving))
      seen.insert(serving)
      guard case let .editor(editor)? = store.state.destination else { Issue.record("no editor"); return }
      #expect(editor.title == "note \(round)")
      store.send(.destination(.dismiss))
      #expect(composition.processes.first?.pids == [])
      #expect(composition.waitUntilEnded(worker: serving))
    }
    let pids = seen.union(composition.warmPIDs)
    composition.shutdown()
    #expect(allExited(pids))
  }

  /// `move detail host` then `move detail worker` of an `ifLet` boundary: back in workers, its
  /// place is vacant and the next action claims a warm worker, which gets the host's copy.
  @Test func anIfLetMovedToTheHostAndBackClaimsAWarmWorker() throws {
    let composition = try composition(app: "detail", placement: "detail\n")
    defer { composition.shutdown() }
    let store = Store(initialState: DetailPresenter.State()) { composition.compose(DetailPresenter()) }
    #expect(composition.waitForWarmPool())
    store.send(.showDetailTapped)
    store.send(.detail(.descriptionChanged("in a worker")))
    let first = try #require(composition.processes.first?.pids.first)
    _ = try composition.move("detail", to: .host)
    store.send(.detail(.descriptionChanged("in the host")))
    #expect(composition.processes.first?.pids == [])
    #expect(composition.waitForWarmPool())
    let idle = composition.warmPIDs
    _ = try composition.move("detail", to: .worker)
    // Nothing started by the move: the place waits for the next action.
    #expect(composition.residence(of: "detail") == .worker)
    #expect(composition.processes.first?.pids == [])
    let crossed = composition.statistics(of: "detail")?.actions ?? 0
    store.send(.detail(.descriptionChanged("back in a worker")))
    let serving = try #require(composition.processes.first?.pids.first)
    #expect(serving != first && idle.contains(serving))
    #expect(composition.statistics(of: "detail")?.actions == crossed + 1)
    #expect(store.state.detail?.description == "back in a worker")
    store.send(.detail(.closeButtonTapped))
    #expect(composition.processes.first?.pids == [])
    // Presented again: another warm worker, with the fresh state.
    store.send(.showDetailTapped)
    store.send(.detail(.descriptionChanged("again")))
    let next = try #require(composition.processes.first?.pids.first)
    #expect(next != serving)
    #expect(store.state.detail == DetailPresenter.Detail.State(description: "again"))
  }
}
