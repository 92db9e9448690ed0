@testable import Bulkhead
@testable import BulkheadDistribution
@testable import Examples
import Foundation
import TestThreads
import Testing
import Synchronization
import Transport

/// The host's answers to a worker's async calls, without processes: from the values of the
/// call's revision, a stream's answers as they come, what the client threw as itself when it
/// is `Codable` and described otherwise, and a clear refusal for a key of the other kind.
@Suite(.onItsOwnThread) struct AsyncDependencyTableTests {
  struct Outage: Error {}

  static func table(_ client: QuoteClient) -> (DependencyTable, revision: UInt64) {
    let table = DependencyTable(boundary: "desk")
    var values = DependencyValues()
    values.quotes = client
    _ = table.header(for: values)
    return (table, values.revision)
  }

  static func call(_ name: String, revision: UInt64, key: any DependencyKey.Type = QuoteClientKey.self, streams: Bool = false) throws
    -> Wire.Call
  {
    Wire.Call(
      token: 1, run: 1, revision: revision, key: CrossingKeys.name(of: key), question: try BinaryEncoder().encode(name),
      streams: streams)
  }

  static let client = QuoteClient(
    fetch: { name in
      if name == "nobody" { throw QuoteError.unknownGuest(name) }
      if name == "down" { throw Outage() }
      return "\(name)!"
    },
    feed: { name in
      AsyncThrowingStream { continuation in
        continuation.yield("\(name) 1")
        continuation.yield("\(name) 2")
        continuation.finish(throwing: QuoteError.unknownGuest(name))
      }
    })

  @Test func anAnswerAndWhatTheClientThrew() async throws {
    let (table, revision) = Self.table(Self.client)
    let ignore: @Sendable ([UInt8]) -> Void = { _ in }
    let answered = await table.answer(try Self.call("Blob", revision: revision), element: ignore)
    #expect(answered == .answered(try BinaryEncoder().encode("Blob!"), warnings: []))

    guard case let .threw(codable, _) = await table.answer(try Self.call("nobody", revision: revision), element: ignore)
    else {
      Issue.record("the client's error did not cross")
      return
    }
    #expect(codable.error as? QuoteError == .unknownGuest("nobody"))

    guard case let .threw(plain, _) = await table.answer(try Self.call("down", revision: revision), element: ignore)
    else {
      Issue.record("the client's error did not cross")
      return
    }
    #expect(plain.value == nil)
    #expect(
      plain.error as? RemoteCallError
        == .remoteThrew(type: String(reflecting: Outage.self), description: "\(Outage())"))
  }

  @Test func aStreamsAnswersGoAsTheyComeThenItsEnd() async throws {
    let (table, revision) = Self.table(Self.client)
    let elements = EventLogOfBytes()
    let end = await table.answer(try Self.call("Blob", revision: revision, streams: true), element: elements.append)
    #expect(try elements.all.map { try BinaryDecoder().decode(String.self, from: $0) } == ["Blob 1", "Blob 2"])
    guard case let .threw(thrown, _) = end else {
      Issue.record("the stream's error did not end it: \(end)")
      return
    }
    #expect(thrown.error as? QuoteError == .unknownGuest("Blob"))
  }

  @Test func aCallOnAKeyOfTheOtherKindIsRefusedClearly() async throws {
    let (table, revision) = Self.table(Self.client)
    let onSynchronous = await table.answer(try Self.call("Blob", revision: revision, key: UUIDGeneratorKey.self)) { _ in }
    #expect(onSynchronous == .refused("Bulkhead.UUIDGeneratorKey is answered synchronously (a CrossingDependencyKey), not asynchronously"))
    let question = table.answer(revision: revision, key: CrossingKeys.name(of: QuoteClientKey.self), question: [])
    #expect(question == .refused("Examples.QuoteClientKey is answered asynchronously (an AsyncCrossingDependencyKey), not synchronously"))
  }
}

/// Byte strings handed over one by one.
private final class EventLogOfBytes: Sendable {
  private let items = Mutex<[[UInt8]]>([])
  @Sendable func append(_ bytes: [UInt8]) { items.withLock { $0.append(bytes) } }
  var all: [[UInt8]] { items.withLock { $0 } }
}
