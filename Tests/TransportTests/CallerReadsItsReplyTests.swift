import Distributed
import Glibc
import TestThreads
import Testing
import TransportTestSupport

@testable import Transport

/// A call from any task reads its own reply on its own thread when nobody else reads the
/// connection (`ReadSide`), over real sockets: replies still reach every caller, the peer's
/// calls still start in order on the reading thread, and the connection's end and deadlines
/// still end calls.
@Suite(.onItsOwnThread, .serialized, .timeLimit(.minutes(1))) struct CallerReadsItsReplyTests {
  /// Whether callers spin on this machine: never with one CPU online.
  private var spins: Bool { sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 }

  /// Two systems of this process, each read by a thread of its own: the right one hosts a
  /// `Calculator`, which the left one calls (the left one hosts nothing, as a caller whose
  /// connection's thread only waits).
  private struct Connected {
    let left: SocketActorSystem
    let right: SocketActorSystem
    let hosted: Calculator
    let leftToRight: Calculator

    init() throws {
      let (leftSocket, rightSocket) = try UnixSocket.pair()
      left = SocketActorSystem(connection: FramedConnection(leftSocket))
      right = SocketActorSystem(connection: FramedConnection(rightSocket))
      hosted = right.hosting(Calculator.id) { Calculator(actorSystem: $0) }
      leftToRight = try Calculator.resolve(id: Calculator.id, using: left)
    }

    func close() {
      left.close()
      right.close()
    }
  }

  @Test func aCallFromAnyTaskReadsItsOwnReply() async throws {
    let connected = try Connected()
    defer { connected.close() }
    // Spinning rests for a while after a yield that came back late (a loaded machine): calls
    // go on until one has read its own reply.
    var calls = 0
    while connected.left.repliesReadByCallers == 0, calls < 20_000 {
      #expect(try await connected.leftToRight.add(calls, 1) == calls + 1)
      calls += 1
    }
    #expect(spins ? connected.left.repliesReadByCallers > 0 : connected.left.repliesReadByCallers == 0)
  }

  @Test func concurrentCallersEachGetTheirOwnReply() async throws {
    let connected = try Connected()
    defer { connected.close() }
    let calculator = connected.leftToRight
    let answers = try await withThrowingTaskGroup(of: Bool.self) { group in
      for task in 0..<8 {
        group.addTask {
          for index in 0..<300 where try await calculator.add(task * 1_000, index) != task * 1_000 + index {
            return false
          }
          return true
        }
      }
      return try await group.reduce(into: [Bool]()) { $0.append($1) }
    }
    #expect(answers == Array(repeating: true, count: 8))
  }

  @Test func thePeersCallsStartInOrderWhileCallersReadTheirReplies() async throws {
    let connected = try Connected()
    defer { connected.close() }
    let hostedLeft = connected.left.hosting(Calculator.id) { Calculator(actorSystem: $0) }
    let leftToRight = connected.leftToRight
    let rightToLeft = try Calculator.resolve(id: Calculator.id, using: connected.right)
    // Left's callers read replies while right's calls and messages reach left between them.
    let hammering = Task {
      for index in 0..<2_000 where try await leftToRight.add(index, 1) != index + 1 { return false }
      return true
    }
    for value in 1...300 {
      if value.isMultiple(of: 3) {
        _ = try await rightToLeft.record(value)
      } else {
        try await rightToLeft.note(value)
      }
    }
    #expect(try await rightToLeft.record(301) == Array(1...301))
    #expect(try await hammering.value)
    _ = hostedLeft
  }

  @Test func aPeerThatEndsMidCallFailsTheCall() async throws {
    let (left, right) = try UnixSocket.pair()
    let caller = SocketActorSystem(connection: FramedConnection(left))
    let peer = FramedConnection(right)
    let calculator = try Calculator.resolve(id: Calculator.id, using: caller)
    let call = Task { try await calculator.add(1, 2) }
    _ = try #require(try peer.receive())
    right.shutdown()
    await #expect(throws: RemoteCallError.peerDisconnected) { try await call.value }
    await #expect(throws: RemoteCallError.peerDisconnected) { try await calculator.add(3, 4) }
  }

  @Test func aReplyThatNeverComesFailsAtTheDeadlineAndLaterCallsGoOn() async throws {
    let (left, right) = try UnixSocket.pair()
    let caller = SocketActorSystem(connection: FramedConnection(left), callTimeout: .milliseconds(200))
    defer { caller.close() }
    let peer = FramedConnection(right)
    let calculator = try Calculator.resolve(id: Calculator.id, using: caller)
    let unanswered = Task { try await calculator.add(1, 2) }
    _ = try #require(try peer.receive())
    await #expect {
      try await unanswered.value
    } throws: { error in
      guard case .deadlineExceeded(_, .milliseconds(200))? = error as? RemoteCallError else { return false }
      return true
    }
    // The next call is answered, after a late reply to the first, which nobody waits for.
    let answered = Task { try await calculator.add(3, 4) }
    guard case let .call(id, _, _, _, _) = try Envelope(try #require(try peer.receive())) else {
      Issue.record("expected a call")
      return
    }
    var seven = ByteWriter()
    7.write(to: &seven)
    var three = ByteWriter()
    3.write(to: &three)
    try peer.send([Envelope.reply(id: id - 1, value: three.bytes).frame, Envelope.reply(id: id, value: seven.bytes).frame])
    #expect(try await answered.value == 7)
  }
}
