import Bulkhead
import BulkheadDistribution
@testable import BulkheadTools
import Examples
import Foundation
import Testing

/// The Chrome trace of a real composition: JSON that parses, a process per OS process, slices
/// on both sides of each crossing, an arrow per crossing, an instant per restart.
@MainActor
@Suite struct TraceTests {
  @Test func aTraceHasAProcessPerOSProcessSlicesOnBothSidesAndAFlowPerCrossing() async throws {
    let path = temporaryTracePath("composition")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let trace = try TraceWriter(path: path, host: "payload")
    let reported = Events()
    let composition = try Composition(
      root: Payload(), placement: Placement(parsing: "store\n", file: "payload.placement"),
      command: .executable(workerExecutable, app: "payload"), instrument: trace, onEvent: reported.append)
    let store = Store(initialState: Payload.State()) { composition.compose(Payload()) }
    for _ in 0..<3 { store.send(.store(.bump)) }
    await store.send(.store(.stream(count: 2))).finish()
    let first = try #require(composition.processes.first?.pids.first)
    composition.killWorker(of: "store")
    _ = await reported.first { $0 == .workerExited(boundary: "store", pid: first) }
    store.send(.store(.bump))
    let second = try #require(composition.processes.first?.pids.first)
    let timings = try #require(composition.timings(of: "store"))
    composition.shutdown()
    try trace.finish()

    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    let all = try #require(document["traceEvents"] as? [[String: Any]])
    func phase(_ phase: String) -> [[String: Any]] { all.filter { $0["ph"] as? String == phase } }
    func pid(_ event: [String: Any]) -> Int32? { (event["pid"] as? Int).map(Int32.init) }

    let host = getpid()
    let named = phase("M").filter { $0["name"] as? String == "process_name" }
    #expect(named.compactMap(pid).sorted() == [host, first, second].sorted())
    #expect(Set(all.compactMap(pid)) == [host, first, second])

    let slices = phase("X")
    let remote = slices.filter { pid($0) == host && $0["cat"] as? String == "remote" }
    let reduces = slices.filter { [first, second].contains(pid($0)) && $0["name"] as? String == "reduce" }
    let effects = slices.filter { pid($0) == host && $0["cat"] as? String == "effect" }
    #expect(remote.count == Int(timings.remoteActions.count) && reduces.count == remote.count)
    #expect(effects.count == 2)
    // Named after their actions, for a person reading the trace.
    #expect(remote.contains { $0["name"] as? String == "store: bump" })
    #expect(effects.allSatisfy { $0["name"] as? String == "store effect: streamed" })
    #expect(reduces.contains { pid($0) == second })

    let starts = phase("s")
    let finishes = phase("f")
    #expect(starts.count == 2 * remote.count + effects.count)
    let startIDs = starts.compactMap { $0["id"] as? Int }
    #expect(Set(startIDs).count == starts.count)
    #expect(Set(startIDs) == Set(finishes.compactMap { $0["id"] as? Int }))
    // Every arrow goes from one process to another, forwards in time.
    for start in starts {
      let finish = try #require(finishes.first { $0["id"] as? Int == start["id"] as? Int })
      #expect(pid(start) != pid(finish))
      #expect((start["ts"] as? Double ?? .infinity) <= (finish["ts"] as? Double ?? -.infinity))
    }

    let instants = phase("i")
    #expect(instants.contains { pid($0) == second && $0["name"] as? String == "restarted" })
    #expect(instants.contains { pid($0) == first && $0["name"] as? String == "exited" })
  }

  @Test func aTraceFinishedEarlyIsStillJSONAndIgnoresLaterEvents() throws {
    let path = temporaryTracePath("early")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let trace = try TraceWriter(path: path, host: "nothing")
    try trace.finish()
    trace.eventOccurred(.workerStarted(boundary: "a \"quoted\"\nname", pid: 1), at: .now)
    try trace.finish()
    let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
    #expect((document?["traceEvents"] as? [Any])?.count == 2)
  }

  @Test func everyRecordIsWrittenInOrderAcrossManyBatches() throws {
    let path = temporaryTracePath("batches")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let trace = try TraceWriter(path: path, host: "many")
    let count: Int32 = 2_000
    // Above this process's own pid, which the trace names as the host's.
    let pids = (getpid() + 1)...(getpid() + count)
    for pid in pids { trace.eventOccurred(.workerStarted(boundary: "b\(pid)", pid: pid), at: .now) }
    try trace.finish()
    let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
    let events = try #require(document?["traceEvents"] as? [[String: Any]])
    let started = events.filter { $0["ph"] as? String == "i" }.compactMap { $0["pid"] as? Int }
    #expect(started == pids.map(Int.init))
    #expect(events.filter { $0["name"] as? String == "process_name" }.count == Int(count) + 1)
  }

  @Test func aTraceDroppedUnfinishedIsStillWhole() throws {
    let path = temporaryTracePath("dropped")
    defer { try? FileManager.default.removeItem(atPath: path) }
    do {
      let trace = try TraceWriter(path: path, host: "dropped")
      trace.eventOccurred(.workerStarted(boundary: "store", pid: 4242), at: .now)
    }
    let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
    let events = try #require(document?["traceEvents"] as? [[String: Any]])
    #expect(events.contains { $0["ph"] as? String == "i" && $0["pid"] as? Int == 4242 })
  }

  @Test func anInnerWorkersEventGoesOnItsOwnProcessNamedWithItsDepthAndParent() throws {
    let path = temporaryTracePath("nested")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let trace = try TraceWriter(path: path, host: "account")
    trace.eventOccurred(.nested(in: "profile", event: .workerStarted(boundary: "profile.avatar", pid: 4242)), at: .now)
    trace.eventOccurred(.nested(in: "profile", event: .workerExited(boundary: "profile.avatar", pid: 4242)), at: .now)
    try trace.finish()
    let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
    let events = try #require(document?["traceEvents"] as? [[String: Any]])
    let named = events.first { $0["name"] as? String == "process_name" && $0["pid"] as? Int == 4242 }
    #expect((named?["args"] as? [String: Any])?["name"] as? String == "worker: profile.avatar (depth 2, started by profile's worker)")
    let instants = events.filter { $0["ph"] as? String == "i" && $0["pid"] as? Int == 4242 }.compactMap { $0["name"] as? String }
    #expect(instants == ["started", "exited"])
  }

  @Test func aTraceThatCannotBeCreatedSaysWhere() {
    #expect(throws: TraceFile.Failure(path: "/nonexistent-directory/trace.json", errno: ENOENT)) {
      try TraceWriter(path: "/nonexistent-directory/trace.json", host: "x")
    }
  }
}

/// A trace file's path in the temporary directory, unique to this test process.
func temporaryTracePath(_ name: String) -> String {
  FileManager.default.temporaryDirectory.appendingPathComponent("bulkhead-trace-\(getpid())-\(name).json").path
}
