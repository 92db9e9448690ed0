import Bulkhead
import BulkheadDistribution
@testable import BulkheadTools
import Examples
import Foundation
import Testing

/// A move is an instant on the host's track of a trace, with the event in words.
@MainActor
@Suite struct MoveTraceTests {
  @Test func aTraceShowsEachMoveOnTheHostsTrack() throws {
    let path = temporaryTracePath("moves")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let trace = try TraceWriter(path: path, host: "two-counters")
    let composition = try Composition(
      root: TwoCounters(), placement: Placement(parsing: "counter1\n", file: "two.placement"),
      command: .executable(workerExecutable, app: "two-counters"), instrument: trace)
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    store.send(.counter1(.incrementButtonTapped))
    _ = try composition.move("counter1", to: .host)
    store.send(.counter1(.incrementButtonTapped))
    _ = try composition.move("counter1", to: .worker)
    store.send(.counter1(.incrementButtonTapped))
    composition.shutdown()
    try trace.finish()

    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    let instants = try #require(document["traceEvents"] as? [[String: Any]]).filter { $0["ph"] as? String == "i" }
    let moves = instants.filter { ($0["name"] as? String)?.hasPrefix("moved") == true }
    #expect(moves.map { $0["name"] as? String } == ["moved to the host", "moved to the worker"])
    #expect(moves.allSatisfy { $0["pid"] as? Int == Int(getpid()) })
    #expect(store.state.counter1.count == 3)
  }
}
