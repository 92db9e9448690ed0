import Bulkhead
import Testing
import Transport

@Suite struct StatePatchTests {
  @Test func aPatchTurnsTheOldEncodingIntoTheNew() throws {
    var generator = SeededGenerator(seed: 7)
    for _ in 0..<500 {
      let old = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in UInt8.random(in: 0...3, using: &generator) }
      let new = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in UInt8.random(in: 0...3, using: &generator) }
      #expect(try StatePatch(from: old, to: new).applied(to: old) == new)
    }
  }

  @Test func oneFieldChangedInAMegabyteIsAPatchOfTensOfBytes() throws {
    struct Big: Codable { var items: [Int]; var title: String }
    var state = Big(items: Array(0..<100_000), title: "before")
    let old = try BinaryEncoder().encode(state)
    state.title = "after"
    let new = try BinaryEncoder().encode(state)
    let patch = StatePatch(from: old, to: new)
    #expect(old.count > 300_000)
    #expect(try BinaryEncoder().encode(patch).count < 40)
  }

  @Test func aPatchForAnotherBaseIsAnErrorNotACrash() throws {
    let patch = StatePatch(from: Array(repeating: 1, count: 10), to: Array(repeating: 1, count: 11))
    #expect(throws: DistributionError.self) { try patch.applied(to: [1, 2]) }
    #expect(try patch.applied(to: Array(repeating: 1, count: 10)) == Array(repeating: 1, count: 11))
  }
}
