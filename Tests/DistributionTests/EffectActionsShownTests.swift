import Foundation
import TestThreads
import Testing

/// `./compose.sh run` shows each action an effect sends as it arrives, marked as from an
/// effect, with the state after it; the script's own actions and `send`'s are not so marked.
@Suite(.onItsOwnThread) struct EffectActionsShownTests {
  @Test func runShowsTheActionsEffectsSendAsTheyArrive() throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    let run = try compose("run", "payload", "none")
    #expect(run.status == 0, "\(run)")
    let lines = run.output.split(separator: "\n").map(String.init)
    let streamed = lines.indices.filter { lines[$0] == "← store(Examples.Payload.Store.Action.streamed) (from an effect)" }
    #expect(streamed.count == 3, "\(run)")
    // Each is followed by the state it brought: the stream's count so far.
    for (count, index) in streamed.enumerated() {
      #expect(lines.indices.contains(index + 1) && lines[index + 1].contains("streamed: \(count + 1))"), "\(run)")
    }
    let sent = try #require(lines.firstIndex { $0.hasPrefix("→ store(Examples.Payload.Store.Action.stream(count: 3))") })
    #expect(sent < streamed[0])
    #expect(!lines.contains { $0.hasPrefix("→") && $0.hasSuffix("(from an effect)") })
  }

  @Test func actionsSentToALiveCompositionAreNotTakenForEffects() throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    #expect(try compose("up", "two-counters").status == 0)
    #expect(try compose("send", "two-counters", "counter1(.incrementButtonTapped)").status == 0)
    #expect(try compose("down", "two-counters").status == 0)
    let log = compose.hostLog("two-counters")
    #expect(log.contains("holding:") && !log.contains("(from an effect)"), "\(log)")
  }
}

/// What `run` says crossed a boundary and its timings table count the same actions, patches
/// and bytes, the effects' actions among them.
@Suite(.onItsOwnThread) struct CrossedCountsTests {
  @Test func theCrossedLineAndTheTimingsTableAgree() throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    // Deadlines a loaded machine meets: a stall would be counted, but is not what this checks.
    let run = try compose("run", "payload", compose.placement("store deadline 60s startup 60s"))
    #expect(run.status == 0, "\(run)")
    let lines = run.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    let crossed = try #require(lines.first { $0.hasPrefix("store") && $0.contains("crossed:") }, "\(run)")
    let header = try #require(lines.firstIndex { $0.hasPrefix("boundary") && $0.contains("effect acts") })
    let row = lines.dropFirst(header + 1).first?.split(separator: " ").map(String.init) ?? []
    // boundary, actions, p50 (2), p90 (2), p99 (2), max (2), worker p50 (2), sent (2), received (2), patches, effect acts
    try #require(row.count > 17 && row[1] != "0", "\(run)")
    let (actions, received, patches, effects) = (row[1], row[14] + " " + row[15], row[16], row[17])
    #expect(crossed.contains("crossed: \(actions) actions, \(effects) effect actions, "), "\(crossed)\n\(row)")
    #expect(effects == "3", "\(row)")
    #expect(crossed.contains(" \(received) received, ") && received.hasSuffix(" B"), "\(crossed)\n\(row)")
    #expect(crossed.contains(" \(patches) patches (host/worker)"), "\(crossed)\n\(row)")
  }
}
