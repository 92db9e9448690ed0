import Synchronization
import Testing
import Transport
import TransportTestSupport

/// What a caller catches when a remote call fails: the thrown error itself when it is a
/// `CodableError`, else a `RemoteCallError` case with the what and where as fields.
@Suite struct RemoteErrorTests {
  @Test func aCodableErrorCrossesAsItselfOnEveryWayOfCalling() async throws {
    for reading in [SocketActorSystem.Reading.byThread, .byCaller] {
      let (caller, callee, calculator) = try calculatorPair(reading: reading)
      defer {
        caller.close()
        callee.close()
      }
      #expect(throws: CalculatorError(message: "boom")) { try callSynchronously { try await calculator.fail("boom") } }
      // The connection still serves the next call.
      #expect(try callSynchronously { try await calculator.add(1, 2) } == 3)
    }
  }

  @Test func anErrorThatIsNotCodableCrossesAsItsTypeAndDescription() async throws {
    let (caller, callee, calculator) = try calculatorPair()
    defer {
      caller.close()
      callee.close()
    }
    await #expect(throws: RemoteCallError.remoteThrew(type: "TransportTestSupport.PlainError", description: "PlainError: boom")) {
      try await calculator.failPlainly("boom")
    }
  }

  @Test func aCallToAnActorThePeerDoesNotHostIsRefusedByItsID() async throws {
    let (caller, callee, _) = try calculatorPair()
    defer {
      caller.close()
      callee.close()
    }
    let id = SocketActorID(number: SocketActorID.firstAssigned + 7)
    let missing = try Calculator.resolve(id: id, using: caller)
    await #expect(throws: RemoteCallError.noSuchActor(id)) { try await missing.add(1, 1) }
  }

  @Test func aFailureInTheOldLayoutIsRefusedNotMisread() async throws {
    let (left, right) = try UnixSocket.pair()
    let caller = SocketActorSystem(connection: FramedConnection(left))
    defer { caller.close() }
    // The peer answers the first call with a failure laid out as a bare message (tag 2).
    let peer = Mutex<FrameChannel?>(nil)
    let channel = FrameChannel(
      FramedConnection(right),
      onFrame: { _ in
        var writer = ByteWriter()
        for field: UInt64 in [2, 1] { writer.write(field) }
        writer.write("boom")
        _ = try? peer.withLock { try $0?.send(Frame(kind: 0x10, payload: writer.bytes)) }
      }, onClose: { _ in })
    peer.withLock { $0 = channel }
    defer { channel.close() }
    let calculator = try Calculator.resolve(id: Calculator.id, using: caller)
    await #expect(throws: RemoteCallError.peerDisconnected) { try await calculator.fail("boom") }
  }

  @Test func theWordsForPeopleNameWhatFailedAndWhere() {
    // The one place these sentences are made: a person reads them in a log or a terminal.
    #expect(
      RemoteCallError.noSuchMethod(actor: "App.Counter", target: "App.Counter.add(_:)").description
        == "App.Counter has no distributed method App.Counter.add(_:).")
    #expect(
      RemoteCallError.remoteThrew(type: "App.Oops", description: "oops").description
        == "The remote call threw App.Oops: oops")
  }
}
