import Distributed
import Foundation
import TestThreads
import Testing
import Transport
import TransportTestSupport

/// A host-side actor system connected to a worker that hosts a `Calculator`.
private func connectToCalculatorWorker(
  callTimeout: Duration = .seconds(10)
) throws -> (SocketActorSystem, Calculator, WorkerProcess, SocketDirectory) {
  let directory = try SocketDirectory.create()
  let listener = try UnixListener(path: directory.path(for: "actors"))
  let secret = LaunchSecret.random()
  let worker = try WorkerProcess(
    name: "actors", executable: echoWorker, arguments: ["--actors"], socketPath: listener.path,
    secret: secret) { _ in }
  let connection = FramedConnection(try listener.accept())
  _ = try Handshake.verify(connection, secret: secret, expectedPID: worker.pid)
  let system = SocketActorSystem(connection: connection, callTimeout: callTimeout)
  return (system, try Calculator.resolve(id: Calculator.id, using: system), worker, directory)
}

@Suite(.onItsOwnThread, .serialized) struct ActorSystemTests {
  @Test func callsReturnValuesAndCarryErrorsBackInOrder() async throws {
    let (system, calculator, worker, directory) = try connectToCalculatorWorker()
    defer { directory.remove() }
    #expect(try await calculator.add(2, 3) == 5)
    for value in 1...20 { _ = try await calculator.record(value) }
    #expect(try await calculator.record(21) == Array(1...21))
    await #expect(throws: CalculatorError(message: "boom")) { try await calculator.fail("boom") }
    system.close()
    worker.closeInput()
    _ = await worker.waitForExit()
  }

  @Test func aCallerThatPrefersTheSystemsExecutorResumesOnItsReadingThread() async throws {
    let (system, calculator, worker, directory) = try connectToCalculatorWorker()
    defer { directory.remove() }
    try await withTaskExecutorPreference(system.executor) { () async throws in
      for value in 1...50 {
        #expect(try await calculator.add(value, 1) == value + 1)
        #expect(system.executor.isCurrent)
      }
      await #expect(throws: CalculatorError(message: "boom")) { try await calculator.fail("boom") }
    }
    #expect(!system.executor.isCurrent)
    system.close()
    worker.closeInput()
    _ = await worker.waitForExit()
  }

  @Test func aCallToAWellKnownActorWaitsUntilThePeerHostsIt() async throws {
    let (left, right) = try UnixSocket.pair()
    let caller = SocketActorSystem(connection: FramedConnection(left))
    let callee = SocketActorSystem(connection: FramedConnection(right))
    defer {
      caller.close()
      callee.close()
    }
    let calculator = try Calculator.resolve(id: Calculator.id, using: caller)
    let unknownID = SocketActorID(number: SocketActorID.firstAssigned + 99)
    let unknown = try Calculator.resolve(id: unknownID, using: caller)
    // Both calls start on the caller's reading thread, so they are sent in this order, and the
    // callee reads them in this order: once the second has failed, the first is waiting.
    let early = Task(executorPreference: caller.executor) { try await calculator.add(20, 22) }
    try await withTaskExecutorPreference(caller.executor) { () async throws in
      // A call to an id that only `assignID` hands out is refused at once, not kept waiting.
      _ = await #expect(throws: RemoteCallError.noSuchActor(unknownID)) { try await unknown.add(1, 1) }
    }
    let hosted = callee.hosting(Calculator.id) { Calculator(actorSystem: $0) }
    #expect(try await early.value == 42)
    _ = hosted
  }

  @Test func aCallPastItsDeadlineFails() async throws {
    let (system, calculator, worker, directory) = try connectToCalculatorWorker(callTimeout: .milliseconds(200))
    defer { directory.remove() }
    await #expect {
      try await calculator.hang()
    } throws: { error in
      guard case .deadlineExceeded(_, .milliseconds(200))? = error as? RemoteCallError else { return false }
      return true
    }
    system.close()
    worker.kill()
    _ = await worker.waitForExit()
  }

  @Test func peerDeathFailsTheCallsInFlightAtOnce() async throws {
    let (_, calculator, worker, directory) = try connectToCalculatorWorker(callTimeout: .seconds(3600))
    defer { directory.remove() }
    let hanging = Task { try await calculator.hang() }
    worker.kill()
    await #expect(throws: RemoteCallError.peerDisconnected) { try await hanging.value }
    _ = await worker.waitForExit()
  }
}
