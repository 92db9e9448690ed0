import Distributed
import Foundation
import Synchronization
import TestThreads
import Testing
import Transport
import TransportTestSupport

/// Messages, targets called directly, and systems read by their callers.
@Suite(.onItsOwnThread) struct ActorMessagesTests {
  @Test func aMessageGetsNoReplyAndKeepsItsPlaceAmongCalls() async throws {
    let (caller, callee, calculator) = try calculatorPair()
    defer {
      caller.close()
      callee.close()
    }
    let sentBefore = caller.bytesSent
    for value in 1...100 { try await calculator.note(value) }
    let receivedBefore = caller.bytesReceived
    #expect(try await calculator.record(0) == Array(1...100) + [0])
    // One reply came back, for `record`; the hundred messages were answered by nothing.
    #expect(caller.bytesReceived - receivedBefore < 400)
    #expect(caller.bytesSent > sentBefore)
  }

  @Test func listedTargetsAreCalledDirectlyAndTheRestByName() async throws {
    let (caller, callee, calculator) = try calculatorPair()
    defer {
      caller.close()
      callee.close()
    }
    #expect(try await calculator.add(2, 3) == 5)
    #expect(try await calculator.record(7) == [7])
    try await calculator.note(8)
    await #expect(throws: CalculatorError(message: "boom")) { try await calculator.fail("boom") }
    #expect(try await calculator.record(9) == [7, 8, 9])
    // `add`, `note` and `record` are listed; `fail` goes through executeDistributedTarget.
    #expect(callee.directTargetCount == 3)
  }

  @Test func aConnectionBoundActorsMethodRunsAsItIsReadWithNoTask() async throws {
    let (caller, callee, calculator) = try calculatorPair()
    defer {
      caller.close()
      callee.close()
    }
    #expect(try await calculator.runsInTask() == false)
    // Calls that need a task hop onto the same thread's lane, in order with the rest.
    for value in 1...20 {
      _ = try await calculator.record(value)
      try await calculator.note(-value)
    }
    #expect(try await calculator.record(0) == (1...20).flatMap { [$0, -$0] } + [0])
  }

  @Test func callsReadBeforeTheirActorWasHostedStayAheadOfTheOnesRunAsTheyAreRead() async throws {
    let (caller, callee, early) = try calculatorPair(hostsCalculator: false)
    defer {
      caller.close()
      callee.close()
    }
    for value in 1...50 { try await early.note(value) }
    // A call to another actor, answered only after the notes before it were read and parked.
    let other = SocketActorID(number: 2)
    _ = callee.hosting(other) { Calculator(actorSystem: $0) }
    #expect(try await Calculator.resolve(id: other, using: caller).add(1, 1) == 2)
    _ = callee.hosting(Calculator.id) { Calculator(actorSystem: $0) }
    for value in 51...100 { try await early.note(value) }
    #expect(try await early.record(0) == Array(1...100) + [0])
  }

  @Test func aConnectionBoundActorStillRunsSeriallyAfterItsConnectionEnds() async throws {
    let (left, right) = try UnixSocket.pair()
    let ended = Event<Bool>()
    let system = SocketActorSystem(connection: FramedConnection(right), onClose: { _ in ended.fire(true) })
    let actor = system.hosting(Calculator.id) { Calculator(actorSystem: $0) }
    left.close()
    #expect(await ended.wait(atMost: .seconds(10)) == true)
    // No thread reads the connection any more: the lane's jobs run on a serial queue.
    let recorded = await withTaskGroup(of: Void.self) { group in
      for value in 1...100 { group.addTask { _ = await actor.whenLocal { $0.record(value) } } }
      await group.waitForAll()
      return await actor.whenLocal { $0.record(0) }
    }
    #expect(recorded?.count == 101)
    #expect(Set(recorded ?? []) == Set(0...100))
  }

  @Test func aSystemReadByItsCallerAnswersSynchronouslyOnTheCallingThread() throws {
    let (caller, callee, calculator) = try calculatorPair(reading: .byCaller)
    defer {
      caller.close()
      callee.close()
    }
    let thread = pthread_self()
    for value in 1...50 {
      let sum = try callSynchronously { try await calculator.add(value, 1) }
      #expect(sum == value + 1)
    }
    // Still on this thread after the call: it never suspended, and nothing hopped.
    let stayedHere = try callSynchronously {
      _ = try await calculator.add(1, 1)
      return pthread_equal(pthread_self(), thread) != 0
    }
    #expect(stayedHere)
    #expect(throws: CalculatorError(message: "boom")) {
      try callSynchronously { try await calculator.fail("boom") }
    }
  }

  /// A store calls from the main actor: the call must not be queued for another thread.
  @MainActor
  @Test func aSynchronousCallFromTheMainActorStaysOnItsThread() throws {
    let (caller, callee, calculator) = try calculatorPair(reading: .byCaller)
    defer {
      caller.close()
      callee.close()
    }
    let thread = pthread_self()
    let stayedHere = try callSynchronously {
      _ = try await calculator.add(1, 1)
      return pthread_equal(pthread_self(), thread) != 0
    }
    #expect(stayedHere)
  }

  @Test func aCallReadByItsCallerFailsAtItsDeadlineAndEndsTheConnection() throws {
    let closed = Mutex<[String]>([])
    let (caller, callee, calculator) = try calculatorPair(
      reading: .byCaller, callTimeout: .milliseconds(200), onClose: { error in closed.withLock { $0.append("\(error.map { "\($0)" } ?? "end")") } })
    defer {
      caller.close()
      callee.close()
    }
    #expect {
      try callSynchronously { try await calculator.hang() }
    } throws: { error in
      guard case .deadlineExceeded? = error as? RemoteCallError else { return false }
      return true
    }
    // A late reply could be taken for the next call's: the connection is given up.
    #expect(throws: RemoteCallError.peerDisconnected) { try callSynchronously { try await calculator.add(1, 1) } }
    #expect(closed.withLock { $0.count } == 1)
  }

  @Test func aCallReadByItsCallerFailsAtOnceWhenThePeerGoes() throws {
    let (caller, callee, calculator) = try calculatorPair(reading: .byCaller, callTimeout: .seconds(3600))
    defer { caller.close() }
    #expect(try callSynchronously { try await calculator.add(1, 1) } == 2)
    callee.close()
    #expect(throws: RemoteCallError.peerDisconnected) { try callSynchronously { try await calculator.add(1, 1) } }
  }

  @Test func theEndOfTheConnectionLetsTheHostedActorsAndTheSystemGo() async throws {
    let (left, right) = try UnixSocket.pair()
    let ended = Event<Bool>()
    weak var weakSystem: SocketActorSystem?
    weak var weakActor: Calculator?
    do {
      let system = SocketActorSystem(connection: FramedConnection(right), onClose: { _ in ended.fire(true) })
      let actor = system.hosting(Calculator.id) { Calculator(actorSystem: $0) }
      (weakSystem, weakActor) = (system, actor)
    }
    #expect(weakActor != nil)
    left.close()
    #expect(await ended.wait(atMost: .seconds(10)) == true)
    // Hosted actors and their system hold each other: only the end of the connection frees them.
    #expect(weakActor == nil)
    #expect(weakSystem == nil)
  }

  @Test func aMessageThatDoesNotDecodeEndsTheConnection() async throws {
    let (left, right) = try UnixSocket.pair()
    let system = SocketActorSystem(connection: FramedConnection(left))
    defer { system.close() }
    let callee = system.hosting(Calculator.id) { Calculator(actorSystem: $0) }
    _ = callee
    // A caller names `note` properly once, then the raw peer sends it with no argument.
    let ended = Event<Bool>()
    let (probeLeft, probeRight) = try UnixSocket.pair()
    let namer = SocketActorSystem(connection: FramedConnection(probeLeft))
    defer { namer.close() }
    let recorder = FrameChannel(FramedConnection(probeRight), onFrame: { _ in }, onClose: { _ in })
    defer { recorder.close() }
    try await Calculator.resolve(id: Calculator.id, using: namer).note(1)
    guard let name = namer.calledTargets.first else { Issue.record("no target was named"); return }
    let peer = FrameChannel(
      FramedConnection(right), onFrame: { _ in ended.fire(false) }, onClose: { _ in ended.fire(true) })
    defer { peer.close() }
    var writer = ByteWriter()
    for field: UInt64 in [0, 0, Calculator.id.number, 0] { writer.write(field) }
    writer.write(name)
    writer.write(bytes: [])
    try peer.send(Frame(kind: 0x10, payload: writer.bytes))
    #expect(await ended.wait(atMost: .seconds(10)) == true)
  }
}
