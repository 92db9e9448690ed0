@testable import BulkheadDistribution
import Testing
import Transport

@Suite struct TrivialValueMemoTests {
  enum Move: Codable, Equatable { case step(Int), turn(left: Bool), stop }
  struct Padded: Codable, Equatable { var flag: Bool; var count: Int }
  /// Decodes to a counter of its own rather than what was encoded: a memo would hide that.
  struct Labelled: Codable, Equatable { var label: String }

  @Test func remembersWhatCodableWouldMake() throws {
    let coding = try #require(ValueCoding(Move.self))
    let moves: [Move] = [.step(3), .turn(left: true), .stop, .step(-1), .turn(left: false)]
    for _ in 0..<3 {
      for move in moves {
        let bytes = try coding.encode(move)
        #expect(bytes == (try BinaryEncoder().encode(move)))
        #expect(try coding.decode(bytes) == move)
      }
    }
  }

  @Test func paddingThatDiffersOnlyMisses() throws {
    let memo = try #require(TrivialValueMemo<Padded>())
    var encoded = 0
    let encode = { (value: Padded) throws -> [UInt8] in
      encoded += 1
      return try BinaryEncoder().encode(value)
    }
    let value = Padded(flag: true, count: 7)
    let first = try memo.encode(value, by: encode)
    #expect(try memo.encode(value, by: encode) == first)
    #expect(encoded == 1)
    #expect(try BinaryDecoder().decode(Padded.self, from: first) == value)
  }

  @Test func forgetsOnceFullAndStaysRight() throws {
    let memo = try #require(TrivialValueMemo<Move>())
    for round in 0..<3 {
      for count in 0..<200 {
        let bytes = try memo.encode(.step(count)) { try BinaryEncoder().encode($0) }
        let decoded = try memo.decode(bytes) { try BinaryDecoder().decode(Move.self, from: $0) }
        #expect(decoded == .step(count), "round \(round)")
      }
    }
  }

  @Test func typesWithReferencesAreNotRemembered() {
    #expect(TrivialValueMemo<Labelled>() == nil)
    #expect(TrivialValueMemo<[Int]>() == nil)
    #expect(TrivialValueMemo<Move>() != nil)
  }
}
