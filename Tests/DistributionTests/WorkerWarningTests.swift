import BulkheadTesting
import Examples
import Testing

/// A worker's runtime warnings reach the host's test, even those raised after the effect that
/// caused them ended there.
@MainActor
@Suite struct WorkerWarningTests {
  @Test func aWorkersSendUsedAfterItsEffectReturnedFailsTheHostsTest() async throws {
    let composition = try composition(app: "lobby", placement: "desk\n")
    defer { composition.shutdown() }
    let store = TestStore(initialState: Lobby.State()) { composition.compose(Lobby()) }
    await store.send(.desk(.keepSend))
    await withKnownIssue {
      await store.send(.desk(.greetThroughKeptSend("Blob")))
      // The detached task is no effect of the worker's: its end is the effect's.
      await store.finish()
    } matching: { issue in
      issue.comments.contains {
        $0.rawValue.contains("The worker of boundary \"desk\"")
          && $0.rawValue.contains("sent an action after its body had returned")
          && $0.rawValue.contains("actions it sends now are dropped")
      }
    }
    // The effect had ended on the host: its late action was dropped there.
    #expect(store.state.desk.greetings == [])
  }
}
