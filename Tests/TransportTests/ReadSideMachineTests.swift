import Testing

@testable import Transport

/// Who reads a connection read by its thread: the thread, nobody, or a caller reading its own
/// reply, without a socket.
@Suite struct ReadSideMachineTests {
  private let call = Frame(kind: Envelope.frameKind, payload: [3, 0, 0, 0, 0, 0, 0, 0])

  /// A machine whose thread has begun to wait.
  private func waiting() -> ReadSideMachine {
    var machine = ReadSideMachine(callersMayRead: true)
    machine.threadLetsGo()
    return machine
  }

  @Test func aCallerTakesTheReadSideOnlyFromAThreadThatWaits() {
    var machine = ReadSideMachine(callersMayRead: true)
    let whileTheThreadReads = machine.callerTakes()
    #expect(!whileTheThreadReads, "the thread reads until it first waits")
    machine.threadLetsGo()
    let onceItWaits = machine.callerTakes()
    #expect(onceItWaits)
    #expect(machine.owner == .caller)
    let second = machine.callerTakes()
    #expect(!second, "one caller at a time")
    let thread = machine.threadTakes()
    #expect(thread == .waits, "the thread does not read while a caller does")
  }

  @Test func aCallerThatReadOnlyRepliesGivesBackWithoutWakingTheThread() {
    var machine = waiting()
    _ = machine.callerTakes()
    let wakes = machine.callerGivesBack(handing: nil, buffered: false)
    #expect(!wakes)
    #expect(machine.owner == .nobody)
    let thread = machine.threadTakes()
    #expect(thread == .reads(nil))
    #expect(machine.owner == .thread)
  }

  @Test func whatACallerHandsOnWakesTheThreadWhichHandlesItFirst() {
    var machine = waiting()
    _ = machine.callerTakes()
    let wakes = machine.callerGivesBack(handing: .frame(call), buffered: false)
    #expect(wakes)
    let next = machine.callerTakes()
    #expect(!next, "no caller reads past a call the thread has not started")
    let thread = machine.threadTakes()
    #expect(thread == .reads(.frame(call)))
    machine.threadLetsGo()
    let again = machine.threadTakes()
    #expect(again == .reads(nil), "handed on once")
  }

  @Test func wholeFramesLeftBufferedWakeTheThread() {
    var machine = waiting()
    _ = machine.callerTakes()
    let wakes = machine.callerGivesBack(handing: nil, buffered: true)
    #expect(wakes)
  }

  @Test func theEndACallerReadsEndsTheThreadsReadingAndNobodyReadsAfter() {
    let end = TransportError.truncatedFrame(received: 3, expected: 11)
    var machine = waiting()
    _ = machine.callerTakes()
    let wakes = machine.callerGivesBack(handing: .end(end), buffered: true)
    #expect(wakes)
    let thread = machine.threadTakes()
    #expect(thread == .reads(.end(end)))
    machine.end()
    let caller = machine.callerTakes()
    #expect(!caller)
    let threadAfter = machine.threadTakes()
    #expect(threadAfter == .waits)
  }

  @Test func withoutEpollOnlyTheThreadReads() {
    var machine = ReadSideMachine(callersMayRead: false)
    machine.threadLetsGo()
    let caller = machine.callerTakes()
    #expect(!caller)
    let thread = machine.threadTakes()
    #expect(thread == .reads(nil))
  }
}
