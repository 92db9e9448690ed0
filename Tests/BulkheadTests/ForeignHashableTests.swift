@testable import Bulkhead
import Testing

/// Ids described across processes: the addresses in private types' names are left out.
@Suite struct ForeignHashableTests {
  @Test(arguments: [
    ("Timer.(unknown context at $55f9cf4c90c8).CancelID(Timer.(unknown context at $55f9cf4c90c8).CancelID.tick)",
     "Timer.(private).CancelID(Timer.(private).CancelID.tick)"),
    ("Examples.Counter.CancelID(Examples.Counter.CancelID.tick)", "Examples.Counter.CancelID(Examples.Counter.CancelID.tick)"),
    ("A.(unknown context at $12", "A.(unknown context at $12"),
    ("", ""),
  ])
  func addressesOfPrivateTypesAreLeftOut(described: String, expected: String) {
    #expect(ForeignHashable.withoutAddresses(described) == expected)
  }
}
