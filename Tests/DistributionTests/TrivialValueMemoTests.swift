@testable import BulkheadDistribution
import Testing
import Transport

@Suite struct TrivialValueMemoTests {
  enum Move: Codable, Equatable { case step(Int), turn(left: Bool), stop }
  struct Padded: Codable, Equatable { var flag: Bool; var count: Int }
  /// Holds a reference (its string's storage): not trivial.
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

  @Test func paddingNeverChangesTheAnswer() throws {
    let memo = try #require(TrivialValueMemo<Padded>())
    let counted = CountedEncoder<Padded>()
    let encode = counted.encode
    // The same value, made in memory whose padding holds zeros or ones. A copy may or may not
    // keep its padding (a debug build's copies often do not), so each may hit or miss; the
    // answer must be the same.
    let zeroed = padded(filling: 0x00)
    let filled = padded(filling: 0xFF)
    let first = try memo.encode(zeroed, by: encode)
    #expect(try memo.encode(zeroed, by: encode) == first)
    #expect(try memo.encode(filled, by: encode) == first)
    #expect((1...3).contains(counted.calls))
    let decode = { try BinaryDecoder().decode(Padded.self, from: $0) }
    #expect(try memo.decode(first, by: decode) == zeroed)
    #expect(try memo.decode(first, by: decode) == filled)
  }

  @Test func forgetsOnceFullAndStaysRight() throws {
    let memo = try #require(TrivialValueMemo<Move>())
    let counted = CountedEncoder<Move>()
    let encode = counted.encode
    for count in 0..<64 { _ = try memo.encode(.step(count), by: encode) }
    _ = try memo.encode(.step(0), by: encode)
    #expect(counted.calls == 64, "64 values are remembered")
    _ = try memo.encode(.step(64), by: encode)
    _ = try memo.encode(.step(0), by: encode)
    #expect(counted.calls == 66, "the 65th made it forget the others")
    for round in 0..<3 {
      for count in 0..<200 {
        let bytes = try memo.encode(.step(count), by: encode)
        let decoded = try memo.decode(bytes) { try BinaryDecoder().decode(Move.self, from: $0) }
        #expect(decoded == .step(count), "round \(round)")
      }
    }
  }

  /// `Padded(flag: true, count: 7)` made in memory first filled with `byte`, so that its
  /// padding holds that byte.
  private func padded(filling byte: UInt8) -> Padded {
    withUnsafeTemporaryAllocation(of: Padded.self, capacity: 1) { slot in
      UnsafeMutableRawBufferPointer(slot).initializeMemory(as: UInt8.self, repeating: byte)
      slot.baseAddress!.pointee.flag = true
      slot.baseAddress!.pointee.count = 7
      return slot.baseAddress!.move()
    }
  }

  @Test func namesAreRememberedAndSayWhatTheDescriptionSays() throws {
    let memo = try #require(TrivialValueMemo<Move>())
    var described = 0
    let describe = { (move: Move) -> String in
      described += 1
      return String(describing: move)
    }
    for _ in 0..<3 {
      #expect(memo.name(of: .turn(left: true), by: describe) == "turn(left: true)")
      #expect(memo.name(of: .step(2), by: describe) == "step(2)")
    }
    #expect(described == 2)
    // Through a boundary's coding, as an instrument sees them: cut short, and for a type with
    // references, described anew.
    let labelled = try #require(ValueCoding(Labelled.self))
    let long = labelled.name(Labelled(label: String(repeating: "x", count: 200)))
    #expect(long.count == 80 && long.hasSuffix("…"))
    #expect(try #require(ValueCoding(Move.self)).name(.stop) == "stop")
  }

  @Test func typesWithReferencesAreNotRemembered() {
    #expect(TrivialValueMemo<Labelled>() == nil)
    #expect(TrivialValueMemo<[Int]>() == nil)
    #expect(TrivialValueMemo<Move>() != nil)
  }
}

/// Encodes with `BinaryEncoder`, counting its calls: a remembered encoding is not a call.
private final class CountedEncoder<Value: Encodable> {
  private(set) var calls = 0

  func encode(_ value: Value) throws -> [UInt8] {
    calls += 1
    return try BinaryEncoder().encode(value)
  }
}
