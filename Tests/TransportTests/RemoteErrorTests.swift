import Synchronization
import Testing
@testable import Transport
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
    // Tag 2 was a failure laid out as a bare message.
    var writer = ByteWriter()
    for field: UInt64 in [2, 1] { writer.write(field) }
    writer.write("boom")
    await #expect(throws: RemoteCallError.peerDisconnected) { try await failureFromAPeerThatAnswers(writer.bytes) }
  }

  /// Any bytes as the type's name (the Swift runtime follows symbolic references in a mangled
  /// name as pointers), and plain names near real ones: each crosses as prose or as itself.
  @Test func madeUpErrorTypeNamesNeverCrashTheLookup() throws {
    var generator = SeededGenerator(seed: 23)
    let real = try #require(_mangledTypeName(CalculatorError.self))
    let value = try BinaryEncoder().encode(CalculatorError(message: "boom"))
    let plain = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_".utf8)
    for round in 0..<20_000 {
      var name = Array([real, "SDySSSiSgG", "Si"][round % 3].utf8)
      switch round % 2 {
      case 0:
        name = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
      default:
        for _ in 0...Int.random(in: 0...3, using: &generator) {
          let byte = Bool.random(using: &generator) ? UInt8.random(in: 0...255, using: &generator) : plain.randomElement(using: &generator)!
          name[Int.random(in: 0..<name.count, using: &generator)] = byte
        }
      }
      _ = try thrown(typeName: name, value: value).error
    }
    #expect(try thrown(typeName: Array(real.utf8), value: value).error as? CalculatorError == CalculatorError(message: "boom"))
  }

  /// A failure as the peer lays it out, with a value of type `typeName`.
  private func thrown(typeName: [UInt8], value: [UInt8]) throws -> ThrownError {
    var writer = ByteWriter()
    writer.write("App.Oops")
    writer.write("oops")
    writer.write(true)
    writer.write(bytes: typeName)
    writer.write(bytes: value)
    var reader = ByteReader(writer.bytes)
    return try ThrownError(from: &reader)
  }

  /// Calls `fail` on a peer that is a bare channel and answers the first frame it reads with
  /// `reply`, as the payload of an actor system frame.
  private func failureFromAPeerThatAnswers(_ reply: [UInt8]) async throws {
    let (left, right) = try UnixSocket.pair()
    let caller = SocketActorSystem(connection: FramedConnection(left))
    defer { caller.close() }
    let peer = Mutex<FrameChannel?>(nil)
    let channel = FrameChannel(
      FramedConnection(right),
      onFrame: { _ in _ = try? peer.withLock { try $0?.send(Frame(kind: 0x10, payload: reply)) } }, onClose: { _ in })
    peer.withLock { $0 = channel }
    defer { channel.close() }
    try await Calculator.resolve(id: Calculator.id, using: caller).fail("boom")
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
