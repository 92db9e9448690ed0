@testable import BulkheadDistribution
import Foundation
import TestThreads
import Testing
import Transport

/// How a pool's workers share the elements of a `forEach`: evenly, for any id type and pool
/// size, and the same worker for an id wherever and whenever it is asked.
@Suite(.onItsOwnThread) struct PoolSpreadTests {
  /// The workers of a pool of `workers` that each of `ids` lands on, counted per worker.
  private func counts<ID: Encodable & Sendable>(_ ids: some Sequence<ID>, workers: Int) throws -> [Int] {
    var counts = Array(repeating: 0, count: workers)
    for id in ids {
      counts[PoolSpread.index(of: id, encoded: try BinaryEncoder().encode(id), workers: workers)] += 1
    }
    return counts
  }

  @Test func integerIDsAreSpreadEvenlyOverEveryPoolSize() throws {
    for workers in 2...64 {
      let counts = try counts(1...1_000, workers: workers)
      let even = 1_000 / Double(workers)
      // Ids taken in turn fill every worker within two of an even share.
      #expect(counts.allSatisfy { abs(Double($0) - even) <= 2 }, "pool \(workers): \(counts)")
    }
  }

  @Test func evenlySpacedIntegerIDsAreSpreadToo() throws {
    for step in [2, 3, 4, 8, 10, 64, 1_000] {
      for workers in 2...64 {
        let counts = try counts(stride(from: step, through: step * 1_000, by: step), workers: workers)
        let even = 1_000 / Double(workers)
        #expect(counts.allSatisfy { abs(Double($0) - even) <= 8 }, "step \(step), pool \(workers): \(counts)")
      }
    }
  }

  @Test func otherIDsAreSpreadAsEvenlyAsChanceAllows() throws {
    let names = (1...1_000).map { "todo-\($0)" }
    let uuids = (1...1_000).map { number in
      UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, UInt8(number >> 8), UInt8(number & 0xff)))
    }
    for workers in 2...64 {
      for counts in [try counts(names, workers: workers), try counts(uuids, workers: workers)] {
        // Hashed ids fall as a fair die would: within four standard deviations of an even share.
        let share = 1 / Double(workers)
        let even = 1_000 * share
        let deviation = (1_000 * share * (1 - share)).squareRoot()
        #expect(counts.allSatisfy { abs(Double($0) - even) <= 4 * deviation }, "pool \(workers): \(counts)")
      }
    }
  }

  /// The index depends on the id alone, never on the process that asks (no per-process hash
  /// seed): a host and every worker that places elements agree, in every run.
  @Test func anIDLandsOnTheSameWorkerInEveryProcess() throws {
    let placed = try (1...8).map { id in PoolSpread.index(of: id, encoded: try BinaryEncoder().encode(id), workers: 2) }
    #expect(placed == [1, 0, 1, 0, 0, 1, 0, 1])
    let names = try (1...4).map { number in
      let name = "todo-\(number)"
      return PoolSpread.index(of: name, encoded: try BinaryEncoder().encode(name), workers: 3)
    }
    #expect(names == [1, 0, 2, 1])
  }
}
