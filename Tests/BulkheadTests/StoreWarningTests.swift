import Bulkhead
import Testing

private struct Logger: Reducer {
  struct State: Equatable { var log: [String] = [] }
  enum Action: Equatable, Sendable { case first, second, escape, late }
  let release: AsyncStream<Void>
  let escaped: Log<Task<Void, Never>>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.log.append("\(action)")
    switch action {
    case .escape:
      // Escapes `send` into a task that outlives the effect: a bug the runtime reports.
      return .run { [release, escaped] send in
        escaped.append(Task {
          for await _ in release {}
          await send(.late)
        })
      }
    case .first, .second, .late:
      return .none
    }
  }
}

@MainActor
@Suite struct StoreWarningTests {
  @Test func aSendFromAnObserverIsQueuedAfterTheCurrentActionAndReported() {
    let store = Store(initialState: Logger.State()) {
      Logger(release: AsyncStream<Void>.makeStream().stream, escaped: Log())
    }
    var commits: [[String]] = []
    store.observe { state in
      commits.append(state.log)
      if state.log == ["first"] { store.send(.second) }
    }
    let reported = warnings { store.send(.first) }
    #expect(store.state.log == ["first", "second"])
    #expect(commits == [["first"], ["first", "second"]])
    #expect(reported.count == 1)
    // The first line says which action was sent, where, and what became of it.
    let headline = reported.first?.message.split(separator: "\n").first ?? ""
    #expect(headline.hasPrefix("Sent Logger.Action.second with \"Store.send\" at \"BulkheadTests/StoreWarningTests.swift:36\""))
    #expect(headline.contains("while the store was processing an action: it was queued"))
    #expect(reported.first?.location.fileID == "BulkheadTests/StoreWarningTests.swift")
  }

  @Test func aSendFromAFinishedEffectIsReportedAndStillDelivered() async {
    let (release, releasing) = AsyncStream<Void>.makeStream()
    let escaped = Log<Task<Void, Never>>()
    let store = Store(initialState: Logger.State()) { Logger(release: release, escaped: escaped) }
    let reported = Log<RuntimeWarning>()
    await withRuntimeWarningHandler({ reported.append($0) }) {
      await store.send(.escape).finish()
      releasing.finish()
      for task in escaped.all { await task.value }
    }
    #expect(store.state.log == ["escape", "late"])
    #expect(reported.all.count == 1)
    #expect(reported.all.first?.message.contains("sent an action after its body had returned") == true)
    #expect(reported.all.first?.location.fileID == "BulkheadTests/StoreWarningTests.swift")
  }
}
