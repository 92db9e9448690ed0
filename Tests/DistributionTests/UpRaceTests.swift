import Foundation
import TestThreads
import Testing

/// Two `./compose.sh up` of one app at once: one host comes up, the other command finds it
/// up, and the log holds one host's lines.
@Suite(.onItsOwnThread) struct UpRaceTests {
  @Test func twoUpsOfOneAppRacingStartOneHost() async throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    let racing = [try compose.start("up", "timers"), try compose.start("up", "timers")]
    var results: [Compose.Result] = []
    for command in racing { results.append(try await command.finish()) }
    #expect(results.map(\.status).sorted() == [0, 64], "\(results)")
    let refused = try #require(results.first { $0.status == 64 })
    #expect(refused.error.contains("timers is already up: host pid"), "\(refused)")
    let log = compose.hostLog("timers")
    #expect(log.components(separatedBy: "app timers: host pid").count == 2, "\(log)")
    #expect(!log.contains("cannot write the run file"), "\(log)")
    #expect(try compose("down", "timers").status == 0)
  }
}
