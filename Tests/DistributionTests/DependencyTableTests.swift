@testable import Bulkhead
@testable import BulkheadDistribution
import Examples
import Foundation
import TestThreads
import Testing
import Transport
import TransportTestSupport

/// The host's answers to a worker's dependency questions: from the values of the revision
/// asked about, and a clear refusal, never a crash, for a key it cannot find or bytes that do
/// not decode.
@Suite(.onItsOwnThread) struct DependencyTableTests {
  @Test func aHeaderIsSentOnlyWhenTheValuesChanged() {
    let table = DependencyTable(boundary: "desk")
    var values = DependencyValues()
    values.context = .test
    values.uuid = .incrementing
    values.nameFormatter = NameFormatter { $0 }
    let header = table.header(for: values)
    #expect(header?.revision == values.revision)
    #expect(header?.context == .test)
    #expect(header?.answeredByHost == [CrossingKeys.name(of: UUIDGeneratorKey.self)])
    #expect(header?.stayingOnHost == ["Examples.NameFormatterKey"])
    #expect(table.header(for: values) == nil)
    values.date = .constant(Date(timeIntervalSince1970: 0))
    #expect(table.header(for: values)?.answeredByHost.count == 2)
  }

  @Test func questionsAreAnsweredWithTheValuesOfTheirRevision() throws {
    let table = DependencyTable(boundary: "desk")
    var first = DependencyValues()
    first.date = .constant(Date(timeIntervalSince1970: 1))
    var second = first
    second.date = .constant(Date(timeIntervalSince1970: 2))
    _ = table.header(for: first)
    _ = table.header(for: second)
    let name = CrossingKeys.name(of: DateGeneratorKey.self)
    let question = try BinaryEncoder().encode(ValueQuestion())
    #expect(try date(table.answer(revision: first.revision, key: name, question: question)) == Date(timeIntervalSince1970: 1))
    #expect(try date(table.answer(revision: second.revision, key: name, question: question)) == Date(timeIntervalSince1970: 2))
    #expect(table.mayAsk(about: second.revision))
    #expect(!table.mayAsk(about: second.revision + 1_000))
  }

  @Test func anEvictedRevisionIsAnsweredWithTheLatestValues() throws {
    let table = DependencyTable(boundary: "desk")
    var values = DependencyValues()
    values.date = .constant(Date(timeIntervalSince1970: 0))
    let evicted = values.revision
    _ = table.header(for: values)
    for second in 1...DependencyTable.capacity {
      values.date = .constant(Date(timeIntervalSince1970: Double(second)))
      _ = table.header(for: values)
    }
    let answer = table.answer(
      revision: evicted, key: CrossingKeys.name(of: DateGeneratorKey.self), question: try BinaryEncoder().encode(ValueQuestion()))
    #expect(try date(answer) == Date(timeIntervalSince1970: Double(DependencyTable.capacity)))
  }

  @Test func anUnknownKeyOrUndecodableBytesAreRefusedClearly() throws {
    let table = DependencyTable(boundary: "desk")
    _ = table.header(for: DependencyValues())
    let revision = DependencyValues().revision
    guard case let .refused(unknown) = table.answer(revision: revision, key: "Examples.NoSuchKey", question: []) else {
      Issue.record("an unknown key was answered")
      return
    }
    #expect(unknown.contains("no crossing dependency key named \"Examples.NoSuchKey\""))
    #expect(unknown.contains("internal or public"))
    // The greeter's question is a string: these bytes are not one.
    guard case let .refused(garbled) = table.answer(revision: revision, key: "8Examples10GreeterKeyO", question: [0xFF, 0xFF, 0xFF])
    else {
      Issue.record("undecodable bytes were answered")
      return
    }
    #expect(garbled.contains("does not decode"))
  }

  /// Any bytes (which once crashed the Swift runtime's lookup: symbolic references it
  /// follows as pointers), and plain names near real ones.
  @Test func madeUpKeyNamesNeverCrashTheLookup() {
    var generator = SeededGenerator(seed: 11)
    let real = CrossingKeys.name(of: UUIDGeneratorKey.self)
    let seeds = [real, "8Examples10GreeterKeyO", "SDySSSiSgG", "Si"]
    let plain = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_".utf8)
    for round in 0..<20_000 {
      var name = Array(seeds[round % seeds.count].utf8)
      switch round % 3 {
      case 0:
        name = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
      case 1:
        for _ in 0...Int.random(in: 0...3, using: &generator) {
          name[Int.random(in: 0..<name.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
        }
      default:
        for _ in 0...Int.random(in: 0...3, using: &generator) {
          let byte = plain[Int.random(in: 0..<plain.count, using: &generator)]
          if Bool.random(using: &generator), !name.isEmpty {
            name[Int.random(in: 0..<name.count, using: &generator)] = byte
          } else {
            name.insert(byte, at: Int.random(in: 0...name.count, using: &generator))
          }
        }
      }
      _ = CrossingKeys.key(named: String(decoding: name, as: UTF8.self))
    }
    #expect(CrossingKeys.key(named: real) == UUIDGeneratorKey.self)
  }

  @Test func anInternalKeyThisProcessNeverTouchedIsFoundByName() {
    // `GreeterKey` is internal to Examples; nothing in this test process reads it.
    let name = "8Examples10GreeterKeyO"
    #expect(CrossingKeys.key(named: name).map { CrossingKeys.name(of: $0) } == name)
  }

  private func date(_ answer: Wire.DependencyAnswer) throws -> Date {
    guard case let .answered(bytes, warnings) = answer, warnings.isEmpty else {
      throw DistributionError.protocolViolation("not answered: \(answer)")
    }
    return try BinaryDecoder().decode(Date.self, from: bytes)
  }
}
