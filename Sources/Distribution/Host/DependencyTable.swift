import Bulkhead
import Synchronization
internal import Transport

/// The host's dependency values that one worker has been told of, by revision, and the
/// host's answers to that worker's questions about crossing keys.
///
/// A worker's reducer and the effects it creates ask with the revision in force when they
/// started, so the table keeps the latest `capacity` sets of values; a question about one
/// evicted since (an effect that outlived 64 changes of the host's dependencies) is answered
/// with the latest values. A synchronous answer runs on the thread that reads the worker's
/// effects connection and takes no lock but the table's own, so it never waits on a host
/// reducer that is itself waiting for that worker; an async one runs in a task of its own.
final class DependencyTable: Sendable {
  static let capacity = 64

  private struct Table {
    /// Oldest first, at most `capacity`.
    var entries: [(revision: UInt64, values: DependencyValues)] = []
    var lastSent: UInt64?
    var highestSent: UInt64 = 0
  }

  private let table = Mutex(Table())
  private let boundary: String

  init(boundary: String) {
    self.boundary = boundary
  }

  /// The header that brings the worker up to `values`, remembered as sent; nil when the
  /// worker has these values already.
  func header(for values: DependencyValues) -> Wire.DependencyHeader? {
    let revision = values.revision
    let isNew = table.withLock { table in
      guard table.lastSent != revision else { return false }
      table.lastSent = revision
      table.highestSent = max(table.highestSent, revision)
      table.entries.removeAll { $0.revision == revision }
      table.entries.append((revision, values))
      if table.entries.count > Self.capacity { table.entries.removeFirst() }
      return true
    }
    guard isNew else { return nil }
    var (crossing, stayingHere) = values.overriddenKeyNames()
    // In a worker that places workers of its own, what its own host answers or keeps is
    // overridden for its workers too: they ask this worker, whose stand-ins ask its host.
    if let host = values.host as? HostDependencies {
      crossing = Set(crossing).union(host.answeredByHost).sorted()
      stayingHere = Set(stayingHere).union(host.stayingOnHost).sorted()
    }
    return Wire.DependencyHeader(
      revision: revision, context: values.context, answeredByHost: crossing, stayingOnHost: stayingHere)
  }

  /// Whether the worker may ask about `revision`: revisions grow, so one later than any the
  /// worker was told of is made up. (An older one never sent cannot be told from an evicted
  /// one, and is answered with the latest values.)
  func mayAsk(about revision: UInt64) -> Bool {
    table.withLock { table in table.lastSent != nil && revision <= table.highestSent }
  }

  /// The host's answer to a question about the key named `name`, with the values of
  /// `revision` in force: the key's answer encoded, or why there is none.
  func answer(revision: UInt64, key name: String, question: [UInt8]) -> Wire.DependencyAnswer {
    let found: (any CrossingDependencyKey.Type, DependencyValues)
    switch lookUp(revision: revision, key: name) {
    case let .success((key as any CrossingDependencyKey.Type, values)): found = (key, values)
    case let .success((key, _)):
      return .refused(
        "\(readableName(of: key)) is answered asynchronously (an AsyncCrossingDependencyKey), not synchronously")
    case let .failure(refusal): return .refused(refusal.reason)
    }
    let (key, values) = found
    let warnings = CollectedWarnings()
    do {
      let bytes = try withRuntimeWarningHandler(warnings.append) {
        try DependencyValues.withValues(values) { try Self.answer(key, question, with: values) }
      }
      return .answered(bytes, warnings: warnings.all)
    } catch {
      return .refused("the question about \(readableName(of: key)) from the worker of \"\(boundary)\" does not decode: \(error)")
    }
  }

  /// The host's answer to an async `call`, with the values of its revision in force: the
  /// key's answer encoded, what its client threw, or why there is none. A call that streams
  /// hands each answer to `element` as it comes, and ends when the stream does. Cancelling
  /// the calling task cancels the client's call.
  func answer(_ call: Wire.Call, element: @escaping @Sendable ([UInt8]) -> Void) async -> Wire.CallEnd {
    let key: any DependencyKey.Type
    let values: DependencyValues
    switch lookUp(revision: call.revision, key: call.key) {
    case let .success(found): (key, values) = found
    case let .failure(refusal): return .refused(refusal.reason)
    }
    let warnings = CollectedWarnings()
    return await withRuntimeWarningHandler(warnings.append) {
      await DependencyValues.withValues(values) {
        if call.streams {
          guard let streaming = key as? any StreamingCrossingDependencyKey.Type else {
            return .refused("\(readableName(of: key)) answers no streams (it is not a StreamingCrossingDependencyKey)")
          }
          return await answers(streaming, call.question, with: values, element: element, warnings: warnings)
        }
        guard let async = key as? any AsyncCrossingDependencyKey.Type else {
          return .refused("\(readableName(of: key)) is answered synchronously (a CrossingDependencyKey), not asynchronously")
        }
        return await answer(async, call.question, with: values, warnings: warnings)
      }
    }
  }

  /// Why the host cannot answer.
  private struct Refusal: Error {
    let reason: String
  }

  /// The values of `revision` (the latest, when evicted since) and the key named `name`.
  private func lookUp(revision: UInt64, key name: String) -> Result<(any DependencyKey.Type, DependencyValues), Refusal> {
    let values = table.withLock { table in
      table.entries.last { $0.revision == revision }?.values ?? table.entries.last?.values
    }
    guard let values else { return .failure(Refusal(reason: "the host has sent no dependency values to this worker")) }
    guard let key = CrossingKeys.key(named: name) else {
      return .failure(
        Refusal(
          reason: """
            the host knows no crossing dependency key named "\(name)". Make the key internal or \
            public rather than private, or read or set it once on the host before the worker asks
            """))
    }
    return .success((key, values))
  }

  private static func answer<Key: CrossingDependencyKey>(
    _: Key.Type, _ question: [UInt8], with values: DependencyValues
  ) throws -> [UInt8] {
    let question = try BinaryDecoder().decode(Key.Question.self, from: question)
    return try BinaryEncoder().encode(Key.answer(question, with: values[Key.self]))
  }

  private func answer<Key: AsyncCrossingDependencyKey>(
    _: Key.Type, _ bytes: [UInt8], with values: DependencyValues, warnings: CollectedWarnings
  ) async -> Wire.CallEnd {
    guard let question = decode(Key.self, bytes) else { return undecodable(Key.self) }
    let answer: Key.Answer
    do {
      answer = try await Key.answer(question, with: values[Key.self])
    } catch {
      return .threw(Wire.Thrown(error), warnings: warnings.all)
    }
    guard let bytes = try? BinaryEncoder().encode(answer) else {
      return .refused("the host's answer for \(readableName(of: Key.self)) does not encode")
    }
    return .answered(bytes, warnings: warnings.all)
  }

  private func answers<Key: StreamingCrossingDependencyKey>(
    _: Key.Type, _ bytes: [UInt8], with values: DependencyValues,
    element: @Sendable ([UInt8]) -> Void, warnings: CollectedWarnings
  ) async -> Wire.CallEnd {
    guard let question = decode(Key.self, bytes) else { return undecodable(Key.self) }
    do {
      for try await answer in Key.answers(question, with: values[Key.self]) {
        guard let bytes = try? BinaryEncoder().encode(answer) else {
          return .refused("an answer of the host's stream for \(readableName(of: Key.self)) does not encode")
        }
        element(bytes)
      }
      return .finished(warnings: warnings.all)
    } catch {
      return .threw(Wire.Thrown(error), warnings: warnings.all)
    }
  }

  private func decode<Key: AsyncCrossingDependencyKey>(_: Key.Type, _ bytes: [UInt8]) -> Key.Question? {
    try? BinaryDecoder().decode(Key.Question.self, from: bytes)
  }

  private func undecodable(_ key: any DependencyKey.Type) -> Wire.CallEnd {
    .refused("the question about \(readableName(of: key)) from the worker of \"\(boundary)\" does not decode")
  }
}
