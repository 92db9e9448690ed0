import Synchronization
import Testing
import Transport
import TransportTestSupport

/// How calls between two actor systems are laid out: arguments and results by their own
/// `WireCodable` layout, targets named once per connection, and a peer that breaks the rules
/// cut off.
@Suite struct ActorWireTests {
  @Test func valuesReadBackWhatTheyWrote() throws {
    var writer = ByteWriter()
    let values: ([Int], String, Bool, UInt64, [String]?, [String]?) = ([-1, 0, 1 << 40], "é\u{0}x", true, .max, ["a"], nil)
    values.0.write(to: &writer)
    values.1.write(to: &writer)
    values.2.write(to: &writer)
    values.3.write(to: &writer)
    values.4.write(to: &writer)
    values.5.write(to: &writer)
    var reader = ByteReader(writer.bytes)
    #expect(try [Int](from: &reader) == values.0)
    #expect(try String(from: &reader) == values.1)
    #expect(try Bool(from: &reader) == values.2)
    #expect(try UInt64(from: &reader) == values.3)
    #expect(try [String]?(from: &reader) == values.4)
    #expect(try [String]?(from: &reader) == values.5)
    #expect(reader.isAtEnd)
  }

  @Test func aTruncatedArrayIsMalformedNotACrash() {
    var writer = ByteWriter()
    [1, 2, 3].write(to: &writer)
    var reader = ByteReader(Array(writer.bytes.dropLast()))
    #expect(throws: TransportError.self) { try [Int](from: &reader) }
  }

  @Test func aTargetsNameCrossesOnlyWithItsFirstCall() async throws {
    let (left, right) = try UnixSocket.pair()
    let caller = SocketActorSystem(connection: FramedConnection(left))
    defer { caller.close() }
    // The callee's side is a bare channel, to see the frames as they come.
    let sizes = Mutex<[Int]>([])
    let twoArrived = Event<Bool>()
    let callee = FrameChannel(
      FramedConnection(right),
      onFrame: { frame in
        if sizes.withLock({ $0.append(frame.payload.count); return $0.count }) == 2 { twoArrived.fire(true) }
      }, onClose: { _ in })
    defer { callee.close() }
    let calculator = try Calculator.resolve(id: Calculator.id, using: caller)
    let first = Task { try await calculator.add(1, 2) }
    let second = Task { try await calculator.add(3, 4) }
    #expect(await twoArrived.wait(atMost: .seconds(10)) == true)
    // Both calls name `add`; only the first carries its mangled name, tens of bytes long.
    let sorted = sizes.withLock { $0 }.sorted()
    #expect(sorted[1] - sorted[0] > 20)
    caller.close()
    _ = try? await (first.value, second.value)
  }

  @Test func aPeerThatNamesATargetItNeverDefinedIsCutOff() async throws {
    let (left, right) = try UnixSocket.pair()
    let system = SocketActorSystem(connection: FramedConnection(left))
    defer { system.close() }
    _ = system.hosting(Calculator.id) { Calculator(actorSystem: $0) }
    let answered = Event<Bool>()
    let peer = FrameChannel(
      FramedConnection(right), onFrame: { _ in answered.fire(true) }, onClose: { _ in answered.fire(false) })
    defer { peer.close() }
    var writer = ByteWriter()
    for field: UInt64 in [3, 1, Calculator.id.number, 7] { writer.write(field) }
    writer.write(bytes: [])
    try peer.send(Frame(kind: 0x10, payload: writer.bytes))
    // The system closes the connection instead of answering.
    #expect(await answered.wait(atMost: .seconds(10)) == false)
  }
}
