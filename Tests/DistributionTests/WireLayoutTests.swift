@testable import Bulkhead
@testable import BulkheadDistribution
import TestThreads
import Testing
import Transport
import TransportTestSupport

/// The wire messages read back what they wrote, and bytes from a misbehaving peer are an
/// error, never a crash or an unbounded allocation.
@Suite(.onItsOwnThread) struct WireLayoutTests {
  static let key = PortableCancelKey(id: "Timer.CancelID(ticking)", path: ["Int(1)"])
  static let effect = PortableEffect.merge([
    .send([1, 2]), .concatenate([.run(7), .none]),
    .cancellable(key, cancelInFlight: true, .run(8)), .cancel(PortableCancelKey(id: nil, path: [])),
  ])
  static let requests: [Wire.Request] = [
    .run(slot: [], baseVersion: 0, patch: nil, action: [3], dependencies: nil),
    .run(slot: [2], baseVersion: 3, patch: nil, action: [3], dependencies: nil, holdReply: 250),
    .run(
      slot: [9, 9], baseVersion: 41, patch: .fields(["count": .whole([2]), "name": .removed, "list": .splice(offset: 3, removing: 1, inserting: [[1], []]), "nested": .fields(["leaf": .whole([5])])]), action: [],
      dependencies: Wire.DependencyHeader(revision: 7, context: .test, answeredByHost: ["k1", "k2"], stayingOnHost: ["k3"])),
    .run(
      slot: [1], baseVersion: UInt64.max, patch: .whole(Array(repeating: 7, count: 300)), action: [0],
      dependencies: Wire.DependencyHeader(revision: .max, context: .live, answeredByHost: [], stayingOnHost: [])),
    .drop(slot: [4]),
  ]
  static let replies: [Wire.Reply] = [
    .ran(Wire.Outcome(baseVersion: 2, version: 3, patch: .fields(["count": .whole([4])]), effect: effect)),
    .ran(Wire.Outcome(baseVersion: 1, version: 1, patch: nil, effect: .none)), .stale(version: 12), .dropped, .failed("no such slot ✗"),
  ]
  static let hostMessages: [Wire.HostMessage] = [
    .start(run: 1), .cancel(run: 2), .processed(sequence: 1 << 40, tookOutcome: true), .woke(token: 7),
    .reportSettling, .ping(token: 3), .answer(token: 1, .answered([4, 5], warnings: ["careful", ""])),
    .answer(token: 2, .refused("no such key ✗")), .callElement(token: 4, [9, 8]),
    .callEnded(token: 4, .answered([1], warnings: ["w"])), .callEnded(token: 5, .finished(warnings: [])),
    .callEnded(
      token: 6,
      .threw(Wire.Thrown(type: "App.Failure", description: "no ✗", value: (typeName: "3App7FailureV", bytes: [1, 2])), warnings: [])),
    .callEnded(token: 7, .threw(Wire.Thrown(type: "App.Other", description: "", value: nil), warnings: ["w"])),
    .callEnded(token: 8, .refused("no such key")),
  ]
  static let workerMessages: [Wire.WorkerMessage] = [
    .action(run: 3, sequence: 4, bytes: [5, 6], outcome: nil),
    .action(
      run: 3, sequence: 5, bytes: [7],
      outcome: Wire.Outcome(baseVersion: 8, version: 9, patch: .fields(["n": .whole([1])]), effect: effect)),
    .finished(run: 5, lastAction: 8), .sleep(run: 6, token: 7, nanoseconds: 1_000_000_000), .settled(count: 9),
    .pong(token: 3), .question(token: 1, revision: 2, key: "10Bulkhead16UUIDGeneratorKeyO", bytes: [1]),
    .warning(run: 3, message: "a warning"),
    .dismiss(run: 3),
    .call(Wire.Call(token: 1 << 33, run: 0, revision: 2, key: "4App8QuoteKeyO", question: [1, 2], streams: true)),
    .call(Wire.Call(token: 2, run: 3, revision: 2, key: "k", question: [], streams: false)), .cancelCall(token: 9),
  ]

  @Test func everyMessageReadsBackWhatItWrote() throws {
    for request in Self.requests { #expect(try roundTrip(request) == request) }
    for reply in Self.replies { #expect(try roundTrip(reply) == reply) }
    for message in Self.hostMessages { #expect(try roundTrip(message) == message) }
    for message in Self.workerMessages { #expect(try roundTrip(message) == message) }
    let hellos: [Wire.Hello] = [
      .serving(Wire.Greeting(boundary: "counter1", state: "A.State", action: "A.Action")),
      .refusing(.unknownApp("two-countrs", apps: ["two-counters", "timers ✗"])),
      .refusing(.unknownBoundary("counter1", app: "timers", boundaries: ["timers"], apps: ["timers"])),
      .refusing(.unknownBoundary("x", app: nil, boundaries: [], apps: [])),
    ]
    for hello in hellos { #expect(try roundTrip(hello) == hello) }
    let answer = Wire.Answer(warnings: ["✗ warned", ""], reply: .pong)
    #expect(try roundTrip(answer) == answer)
  }

  /// Each side reads only the messages the other may send it: a message of the wrong
  /// direction is refused as such, not taken for damage or for a message of this side.
  @Test func aMessageOfTheOtherDirectionIsRefused() {
    for message in Self.hostMessages {
      let error = #expect(throws: DistributionError.self) { try Wire.decode(Wire.WorkerMessage.self, from: Wire.encode(message)) }
      #expect(error.map { "\($0)" }?.contains("only the host sends") == true, "\(message)")
    }
    for message in Self.workerMessages {
      let error = #expect(throws: DistributionError.self) { try Wire.decode(Wire.HostMessage.self, from: Wire.encode(message)) }
      #expect(error.map { "\($0)" }?.contains("only a worker sends") == true, "\(message)")
    }
  }

  /// With the host's dependencies unchanged, an action's request costs one byte more than it
  /// did before dependencies crossed.
  @Test func unchangedDependenciesCostOneByte() {
    let bare = Wire.encode(Wire.Request.run(slot: [], baseVersion: 5, patch: nil, action: [1, 2], dependencies: nil))
    // Tag, slot, version, patch flag, action (length and bytes), dependencies flag, reply hold.
    #expect(bare.count == 1 + 1 + 1 + 1 + 3 + 1 + 1)
  }

  /// A worker of another layout is refused at its greeting, whatever follows the version.
  @Test func aGreetingInAnotherLayoutSaysBothLayouts() {
    var writer = ByteWriter()
    writer.write(Wire.layoutVersion - 1)
    writer.write("counter1")
    #expect {
      try Wire.decode(Wire.Hello.self, from: writer.bytes)
    } throws: { error in
      let layouts = "the worker speaks wire layout \(Wire.layoutVersion - 1); this host speaks \(Wire.layoutVersion)"
      return "\(error)".contains(layouts)
    }
  }

  @Test func trailingBytesAreRejected() {
    let padded = Wire.encode(Wire.Reply.dropped) + [0]
    #expect(throws: DistributionError.self) { try Wire.decode(Wire.Reply.self, from: padded) }
  }

  @Test func deeplyNestedEffectsAreRejectedBeforeTheyExhaustTheStack() {
    var effect = PortableEffect.none
    for _ in 0..<10_000 { effect = .concatenate([effect]) }
    let bytes = Wire.encode(Wire.Reply.ran(Wire.Outcome(baseVersion: 1, version: 1, patch: nil, effect: effect)))
    #expect(throws: DistributionError.self) { try Wire.decode(Wire.Reply.self, from: bytes) }
  }

  @Test func randomAndMutatedBytesNeverCrashTheReader() {
    var generator = SeededGenerator(seed: 4)
    let valid =
      Self.replies.map { Wire.encode($0) } + Self.requests.map { Wire.encode($0) }
      + Self.hostMessages.map { Wire.encode($0) } + Self.workerMessages.map { Wire.encode($0) }
    var rejected = 0
    for round in 0..<20_000 {
      var bytes: [UInt8]
      if round.isMultiple(of: 2) {
        bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
      } else {
        bytes = valid[Int.random(in: 0..<valid.count, using: &generator)]
        for _ in 0...Int.random(in: 0...3, using: &generator) where !bytes.isEmpty {
          bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
        }
      }
      for decode in [
        { _ = try Wire.decode(Wire.Request.self, from: $0) },
        { _ = try Wire.decode(Wire.Reply.self, from: $0) },
        { _ = try Wire.decode(Wire.HostMessage.self, from: $0) },
        { _ = try Wire.decode(Wire.WorkerMessage.self, from: $0) },
      ] as [([UInt8]) throws -> Void] {
        do {
          try decode(bytes)
        } catch {
          rejected += 1
        }
      }
    }
    // Most random bytes are not a message; the point is that none of them crashed the reader.
    #expect(rejected > 20_000)
  }

  private func roundTrip<Message: WireCodable>(_ message: Message) throws -> Message {
    try Wire.decode(Message.self, from: Wire.encode(message))
  }
}
