import Distributed
import Testing
import Transport
import TransportTestSupport

/// An actor the peer's process does not have, as in a peer built from other code.
distributed actor Stranger {
  typealias ActorSystem = SocketActorSystem

  distributed func greet() -> Int { 1 }
}

/// Methods named by a call through them, never by a string.
@Suite struct MethodTargetTests {
  @Test func aMethodsTargetIsTheOneSwiftNamesWhenItIsCalled() async throws {
    let (caller, callee, calculator) = try calculatorPair()
    defer {
      caller.close()
      callee.close()
    }
    _ = try await calculator.add(1, 2)
    let target = try Calculator.addTarget.method.target(using: caller)
    #expect(caller.calledTargets == [target.identifier])
    // Read on a stand-in: nothing more was written.
    #expect(caller.calledTargets.count == 1)
  }

  @Test func aSynchronousCallByTargetRunsTheMethodDirectly() throws {
    let (caller, callee, _) = try calculatorPair(reading: .byCaller)
    defer {
      caller.close()
      callee.close()
    }
    var arguments = ByteWriter()
    for value in [2, 3] { value.write(to: &arguments) }
    var reply = ByteReader(try caller.call(Calculator.id, Calculator.addTarget, arguments: arguments.bytes))
    #expect(try Int(from: &reply) == 5)
    #expect(callee.directTargetCount == 1)
  }

  @Test func aCallToAMethodTheActorLacksIsRefusedWithTheMethodsName() async throws {
    let (caller, callee, _) = try calculatorPair()
    defer {
      caller.close()
      callee.close()
    }
    let stranger = try Stranger.resolve(id: Calculator.id, using: caller)
    await #expect(
      throws: RemoteCallError.noSuchMethod(actor: "TransportTestSupport.Calculator", target: "TransportTests.Stranger.greet()")
    ) {
      try await stranger.greet()
    }
  }

  @Test func aTargetWhoseCallReachesNoMethodSaysSo() throws {
    let (caller, callee, _) = try calculatorPair()
    defer {
      caller.close()
      callee.close()
    }
    let nothing = MethodTarget<Calculator> { _ in 0 }
    let expected = MethodTargetError(actor: "TransportTestSupport.Calculator", outcome: "returned without calling the system")
    #expect(throws: expected) {
      try nothing.target(using: caller)
    }
  }
}
