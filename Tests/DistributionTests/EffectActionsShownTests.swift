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
