import Foundation
import TestThreads
import Testing
import Transport
#if canImport(Glibc)
  import Glibc
#endif

@Suite(.onItsOwnThread) struct SendTimeoutTests {
  /// More than any socket buffer holds.
  private let bigFrame = Frame(kind: 1, payload: [UInt8](repeating: 7, count: 8 << 20))

  @Test func aSendToAPeerThatReadsNothingTimesOut() throws {
    let (left, right) = try UnixSocket.pair()
    let sender = FramedConnection(left)
    try sender.setSendTimeout(milliseconds: 200)
    #expect(left.sendTimeout == 200)
    let started = ContinuousClock.now
    #expect(throws: TransportError.timedOut(path: "socket \(left.descriptor)", milliseconds: 200)) {
      try sender.send(bigFrame)
    }
    let elapsed = ContinuousClock.now - started
    #expect(elapsed >= .milliseconds(150) && elapsed < .seconds(5), "\(elapsed)")
    // Part of the frame went: the connection was shut down rather than left torn.
    #expect(throws: TransportError.self) { try sender.send(Frame(kind: 2, payload: [])) }
    // Without a timeout again, a send that fits goes through as before.
    let (other, otherPeer) = try UnixSocket.pair()
    try other.setSendTimeout(milliseconds: 200)
    try other.setSendTimeout(milliseconds: nil)
    #expect(other.sendTimeout == nil)
    try FramedConnection(other).send(Frame(kind: 3, payload: [1]))
    #expect(try FramedConnection(otherPeer).receive() == Frame(kind: 3, payload: [1]))
    withExtendedLifetime(right) {}
  }

  /// A sender blocked on a peer that reads nothing holds the channel's writer lock; close()
  /// must not wait for it, and the sender must fail once the socket is shut down.
  @Test func closeReturnsWhileASenderIsBlocked() async throws {
    let (left, right) = try UnixSocket.pair()
    let readerEnded = Event<Bool>()
    let channel = FrameChannel(FramedConnection(left), onFrame: { _ in }, onClose: { _ in readerEnded.fire(true) })
    let sendFailed = Event<Bool>()
    let frame = bigFrame
    DetachedThread.run {
      do {
        try channel.send(frame)
        sendFailed.fire(false)
      } catch {
        sendFailed.fire(true)
      }
    }
    // Bytes reach the peer only from inside send(), which holds the writer lock; the frame
    // is larger than the socket can hold, so the sender is now blocked or about to be.
    var request = pollfd(fd: right.descriptor, events: Int16(POLLIN), revents: 0)
    #expect(poll(&request, 1, 10_000) == 1)
    let closed = Event<Bool>()
    DetachedThread.run {
      channel.close()
      closed.fire(true)
    }
    let closedInTime = await closed.wait(atMost: .seconds(10))
    #expect(closedInTime == true, "close() waited for the blocked sender")
    if closedInTime == nil { right.shutdown() }  // free the sender, so the test can end
    #expect(await sendFailed.wait(atMost: .seconds(10)) == true)
    #expect(await readerEnded.wait(atMost: .seconds(10)) == true)
  }
}
