import Testing
import Transport
import TransportTestSupport

/// A synchronous call leaves the caller's task as it found it: its task-local values hold.
@Suite struct SynchronousCallContextTests {
  @TaskLocal static var marker: Int?

  @MainActor
  @Test(arguments: 0..<20) func taskLocalsHoldAroundASynchronousCallFromTheMainActor(round: Int) throws {
    let (caller, callee, calculator) = try calculatorPair(reading: .byCaller)
    defer {
      caller.close()
      callee.close()
    }
    _ = try callSynchronously { try await calculator.add(1, 1) }
    try Self.$marker.withValue(round) {
      #expect(Self.marker == round)
      _ = try callSynchronously { try await calculator.add(1, 1) }
      #expect(Self.marker == round)
    }
    Self.$marker.withValue(round + 1) {
      #expect(Self.marker == round + 1)
    }
  }
}
