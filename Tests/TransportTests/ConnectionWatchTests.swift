import Foundation
import TestThreads
import Testing
import Transport
import TransportTestSupport

/// `ConnectionWatch`: one thread reads many systems' connections; a call to an actor bound to
/// a connection runs there as it is read, a connection that sent half a frame holds up none of
/// the others, and calls made on a watched system still fail at their deadline.
@Suite(.onItsOwnThread) struct ConnectionWatchTests {
  /// A system read by the watch hosting a `Calculator`, and a caller read by a thread of its own.
  private func watchedCalculator(callTimeout: Duration = .seconds(10)) throws -> (caller: SocketActorSystem, callee: SocketActorSystem, calculator: Calculator) {
    let (left, right) = try UnixSocket.pair()
    let callee = SocketActorSystem(connection: FramedConnection(right), callTimeout: callTimeout, watchedBy: .effects)
    _ = callee.hosting(Calculator.id) { Calculator(actorSystem: $0) }
    let caller = SocketActorSystem(connection: FramedConnection(left))
    return (caller, callee, try Calculator.resolve(id: Calculator.id, using: caller))
  }

  @Test func aCallToAnActorBoundToAWatchedConnectionRunsOnTheWatchAsItIsRead() async throws {
    let (caller, callee, calculator) = try watchedCalculator()
    defer {
      caller.close()
      callee.close()
    }
    #expect(try await calculator.add(2, 3) == 5)
    // In no task: run by the watch's thread that read it, not queued for the cooperative pool.
    #expect(try await calculator.runsInTask() == false)
    // `record` runs in a task on the lane, whose jobs the watch runs between reads.
    #expect(try await calculator.record(1) == [1])
    #expect(try await calculator.record(2) == [1, 2])
  }

  @Test func aConnectionThatSentHalfAFrameHoldsUpNoOther() async throws {
    let (stalled, stalledPeer) = try UnixSocket.pair()
    let stalledSystem = SocketActorSystem(connection: FramedConnection(stalled), watchedBy: .effects)
    defer { stalledSystem.close() }
    // Three bytes of a frame's header, and then nothing: a peer stopped as it wrote.
    let written = [UInt8](repeating: 0, count: 3).withUnsafeBytes { send(stalledPeer.descriptor, $0.baseAddress, 3, 0) }
    try #require(written == 3)
    let (caller, callee, calculator) = try watchedCalculator()
    defer {
      caller.close()
      callee.close()
    }
    for number in 0..<200 {
      #expect(try await calculator.add(number, 1) == number + 1)
    }
    withExtendedLifetime(stalledPeer) {}
  }

  @Test func theEndOfAWatchedConnectionReachesItsSystem() async throws {
    let (left, right) = try UnixSocket.pair()
    let ended = AsyncStream<TransportError?>.makeStream()
    let system = SocketActorSystem(connection: FramedConnection(right), watchedBy: .effects) { error in
      ended.continuation.yield(error)
    }
    left.close()
    var endings = ended.stream.makeAsyncIterator()
    let ending = await endings.next()
    #expect(ending == .some(nil), "the peer closed it between frames")
    withExtendedLifetime(system) {}
  }

  @Test func aCallMadeOnAWatchedSystemFailsAtItsDeadline() async throws {
    let (left, right) = try UnixSocket.pair()
    let host = SocketActorSystem(connection: FramedConnection(left))
    _ = host.hosting(Calculator.id) { Calculator(actorSystem: $0) }
    let watched = SocketActorSystem(connection: FramedConnection(right), callTimeout: .milliseconds(200), watchedBy: .effects)
    defer {
      watched.close()
      host.close()
    }
    let calculator = try Calculator.resolve(id: Calculator.id, using: watched)
    let started = ContinuousClock.now
    await #expect {
      try await calculator.hang()
    } throws: { error in
      guard case .deadlineExceeded(_, .milliseconds(200))? = error as? RemoteCallError else { return false }
      return true
    }
    let waited = ContinuousClock.now - started
    #expect(waited >= .milliseconds(200) && waited < .seconds(5))
  }
}
