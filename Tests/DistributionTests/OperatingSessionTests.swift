import Examples
import Foundation
import TestThreads
import Testing

/// A person's whole session with a live composition, through `./compose.sh` alone: `up`,
/// `send`, `state`, `move` both ways, a worker killed while a move to workers starts it, and
/// `down`, on a real detached host with real workers. Every state it prints is checked
/// against the same actions sent to a store in this process.
@Suite(.onItsOwnThread, .serialized) struct OperatingSessionTests {
  typealias Expected = FinalState<TwoCounters.State, TwoCounters.Action>

  @Test func aSessionOfSendsAndMovesEndsInTheStateOfOneProcess() async throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    let up = try compose("up", "two-counters")
    #expect(up.status == 0, "\(up)")
    let host = try #require(Self.hostPid(in: up.output), "\(up)")
    var sent: [TwoCounters.Action] = []

    /// Sends `action` as a person types it, and checks the state it prints.
    func send(_ text: String, _ action: TwoCounters.Action) async throws {
      sent.append(action)
      let expected = try await Expected.of("two-counters", then: sent)
      let result = try compose("send", "two-counters", text)
      #expect(result.status == 0 && result.output.hasSuffix("state: \(expected)\n"), "\(text)\n\(result)")
    }
    func move(_ boundary: String, to residence: String) throws {
      let result = try compose("move", "two-counters", boundary, residence)
      #expect(result.status == 0 && result.output.hasPrefix("two-counters: moved \(boundary) to the \(residence) in "), "\(result)")
    }

    try await send("counter1(.incrementButtonTapped)", .counter1(.incrementButtonTapped))
    try await send(#"{"counter2":{"_0":{"decrementButtonTapped":{}}}}"#, .counter2(.decrementButtonTapped))
    let descriptors = Self.openDescriptors(of: host)

    try move("counter1", to: "host")
    try await send("counter1(.incrementButtonTapped)", .counter1(.incrementButtonTapped))
    #expect(try Self.row("counter1", of: compose)[2] == "host")

    // Back to workers, and the worker the move starts is killed as soon as it shows: during
    // the move, or just after it on a fast machine. Either way the next action finds it dead
    // and runs once, on its successor, from the host's copy.
    let running = Set(Self.children(of: host))
    let moving = try compose.start("move", "two-counters", "counter1", "worker")
    var killed: Int32?
    let deadline = ContinuousClock.now + .seconds(30)
    while killed == nil, ContinuousClock.now < deadline {
      killed = Self.children(of: host).first { !running.contains($0) }
    }
    let started = try #require(killed, "no worker started for counter1")
    #expect(kill(started, SIGKILL) == 0)
    let moved = try await moving.finish()
    #expect(moved.status == 0 && moved.output.hasPrefix("two-counters: moved counter1 to the worker in "), "\(moved)")
    try await send("counter1(.incrementButtonTapped)", .counter1(.incrementButtonTapped))
    let columns = try Self.row("counter1", of: compose)
    #expect(columns[2] != "\(started)" && columns[5] == "1", "counter1 restarted once, on a new worker: \(columns)")

    try move("counter1", to: "host")
    try move("counter2", to: "host")
    try await send("counter2(.incrementButtonTapped)", .counter2(.incrementButtonTapped))
    try move("counter2", to: "worker")
    try move("counter1", to: "worker")
    try await send("counter1(.decrementButtonTapped)", .counter1(.decrementButtonTapped))
    try await send("counter2(.decrementButtonTapped)", .counter2(.decrementButtonTapped))

    let expected = try await Expected.of("two-counters", then: sent)
    #expect(try compose("state", "two-counters").output == "\(expected)\n")
    #expect(try compose("state", "two-counters", "counter2").output == "\(expected.counter2)\n")
    // The workers let go and the one killed left nothing open in the host. (The count before
    // may hold the last `send`'s control connection, which the host closes just after.)
    #expect(Self.openDescriptors(of: host, settlingAt: descriptors) <= descriptors)

    let workers = Self.children(of: host)
    #expect(try compose("down", "two-counters").status == 0)
    #expect(allExited(workers + [host]))
  }

  /// The host's pid as `up` prints it: "two-counters is up: host pid 4242, …".
  private static func hostPid(in output: String) -> Int32? {
    output.split(separator: ",").first?.split(separator: " ").last.flatMap { Int32($0) }
  }

  /// `boundary`'s row of `ps`, in columns: BOUNDARY, INDEX, PID, STATE, UPTIME, RESTARTS, …
  private static func row(_ boundary: String, of compose: Compose) throws -> [Substring] {
    let ps = try compose("ps", "two-counters").output
    let row = try #require(ps.split(separator: "\n").first { $0.hasPrefix("\(boundary) ") }, "\(ps)")
    return row.split(separator: " ")
  }

  /// How many descriptors process `pid` has open; with `expected`, read again for up to two
  /// seconds until it is at most that: the host closes a control connection just after its
  /// answer, which the command may have read and exited on already.
  private static func openDescriptors(of pid: Int32, settlingAt expected: Int? = nil) -> Int {
    let deadline = ContinuousClock.now + .seconds(2)
    while true {
      let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
      guard let expected, open > expected, ContinuousClock.now < deadline else { return open }
      Thread.sleep(forTimeInterval: 0.01)
    }
  }

  /// The processes whose parent is `pid`: its workers and their template.
  private static func children(of pid: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter { parent(of: $0) == pid }
  }
}
