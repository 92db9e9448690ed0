import Bulkhead
import Synchronization
internal import Transport

/// A worker's view of the host's dependency values at one revision, which the host sent with
/// a request: crossing keys get a stand-in that asks the host, so that a worker's calls reach
/// the host's value (a test's override, or the host's test or live value); other keys take
/// the worker's own value in the host's context.
///
/// A key that cannot cross but that the host overrode warns, once per worker and key, the
/// first time the worker uses it: the host cannot tell earlier, since a store may override
/// anything at any step and the host cannot know which keys a worker's reducer reads, so it
/// names those overrides with the request and the worker speaks up when one matters.
///
/// ```swift
/// var values = base
/// values.host = HostDependencies(header, boundary: "counter1", effects: effects, warned: warned)
/// ```
final class HostDependencies: HostAnsweredValues {
  /// What a worker does for one key at this revision.
  private enum Source: Sendable {
    /// The worker's own value, from its defaults.
    case own
    /// This stand-in, whose calls ask the host.
    case host(any Sendable)
  }

  let context: DependencyContext
  private let asker: Asker
  /// The crossing keys the host overrode, which the worker asks it about.
  let answeredByHost: Set<String>
  /// The keys the host overrode that cannot cross.
  let stayingOnHost: Set<String>
  private let warned: WarnedKeys
  private let sources = Mutex<[ObjectIdentifier: Source]>([:])

  init(_ header: Wire.DependencyHeader, boundary: String, effects: WorkerEffects, warned: WarnedKeys) {
    context = header.context
    asker = Asker(revision: header.revision, context: header.context, boundary: boundary, effects: effects)
    answeredByHost = Set(header.answeredByHost)
    stayingOnHost = Set(header.stayingOnHost)
    self.warned = warned
  }

  /// Whether the worker may run an effect's action ahead of the host with these values. Not
  /// in a test, nor with crossing keys overridden on the host: running ahead could draw on
  /// the host's values (a UUID from its sequence) for an outcome the host may not take. In
  /// the live context a crossing key without `workerUsesItsOwnLiveValue` still asks the
  /// host when it is read ahead, and that draw is not undone if the host runs the action
  /// again itself.
  var allowsRunningAhead: Bool { context == .live && answeredByHost.isEmpty }

  func value<Key: DependencyKey>(for key: Key.Type) -> Key.Value? {
    let id = ObjectIdentifier(key)
    let source = sources.withLock { $0[id] } ?? decide(key, id: id)
    guard case let .host(value) = source else { return nil }
    return value as? Key.Value
  }

  /// Decides, once per key, where the key's value comes from. The first decision stands: two
  /// threads that race make the same one.
  private func decide<Key: DependencyKey>(_ key: Key.Type, id: ObjectIdentifier) -> Source {
    let name = CrossingKeys.name(of: key)
    let source: Source
    if let crossing = key as? any CrossingDependencyKey.Type {
      let makesItsOwn =
        context == .live && crossing.workerUsesItsOwnLiveValue && !answeredByHost.contains(name)
      source = makesItsOwn ? .own : .host(asker.standIn(for: crossing))
    } else if let streaming = key as? any StreamingCrossingDependencyKey.Type {
      source = .host(asker.streamingStandIn(for: streaming))
    } else if let async = key as? any AsyncCrossingDependencyKey.Type {
      source = .host(asker.asyncStandIn(for: async))
    } else {
      if stayingOnHost.contains(name), warned.isFirst(name) { asker.warnOverrideStaysOnHost(key) }
      source = .own
    }
    return sources.withLock { sources in
      if let decided = sources[id] { return decided }
      sources[id] = source
      return source
    }
  }
}

/// Asks the host on behalf of the stand-ins of one revision. Apart from `HostDependencies`,
/// so that the stand-ins it keeps do not keep it.
private struct Asker: Sendable {
  let revision: UInt64
  let context: DependencyContext
  let boundary: String
  let effects: WorkerEffects

  func standIn<Key: CrossingDependencyKey>(for _: Key.Type) -> any Sendable {
    Key.asking { question in ask(Key.self, question) }
  }

  /// The host's answer to `question`; when there is none, the worker's own value's answer,
  /// with a warning unless the host is gone (the worker is then on its way out).
  private func ask<Key: CrossingDependencyKey>(_: Key.Type, _ question: Key.Question) -> Key.Answer {
    let problem: String
    do {
      let bytes = try BinaryEncoder().encode(question)
      switch effects.ask(revision: revision, key: CrossingKeys.name(of: Key.self), question: bytes) {
      case let .answered(answer, warnings)?:
        report(warnings, to: .current)
        return try BinaryDecoder().decode(Key.Answer.self, from: answer)
      case let .refused(reason)?:
        problem = reason
      case nil:
        return Key.answer(question, with: ownValue(Key.self))
      }
    } catch {
      problem = "\(error)"
    }
    warnNoAnswer(Key.self, problem, to: .current)
    return Key.answer(question, with: ownValue(Key.self))
  }

  /// The stand-in of an async key: each call awaits the host's answer.
  func asyncStandIn<Key: AsyncCrossingDependencyKey>(for _: Key.Type) -> any Sendable {
    Key.asking { question in try await call(Key.self, question) }
  }

  /// The stand-in of a key whose client also returns streams.
  func streamingStandIn<Key: StreamingCrossingDependencyKey>(for _: Key.Type) -> any Sendable {
    Key.asking({ question in try await call(Key.self, question) }, streaming: { question in stream(Key.self, question) })
  }

  /// The host's answer to an async call, or what its client threw; when the host cannot
  /// answer, the worker's own value's answer, with a warning.
  private func call<Key: AsyncCrossingDependencyKey>(_: Key.Type, _ question: Key.Question) async throws -> Key.Answer {
    let problem: String
    do {
      let bytes = try BinaryEncoder().encode(question)
      switch try await effects.call(revision: revision, key: CrossingKeys.name(of: Key.self), question: bytes) {
      case let .answered(answer, warnings):
        report(warnings, to: .current)
        return try BinaryDecoder().decode(Key.Answer.self, from: answer)
      case let .threw(thrown, warnings):
        report(warnings, to: .current)
        throw HostThrew(error: thrown.error)
      case let .refused(reason):
        problem = reason
      case .finished:
        problem = "the host ended the call without an answer"
      }
    } catch let threw as HostThrew {
      throw threw.error
    } catch let error as CancellationError {
      throw error
    } catch let error as RemoteCallError {
      throw error  // the connection ended: the worker is on its way out
    } catch {
      problem = "\(error)"
    }
    warnNoAnswer(Key.self, problem, to: .current)
    return try await Key.answer(question, with: ownValue(Key.self))
  }

  /// The host's stream of answers to `question`. The worker's stream ends as the host's does;
  /// cancelling its iteration, or stopping it, cancels the host's.
  private func stream<Key: StreamingCrossingDependencyKey>(
    _: Key.Type, _ question: Key.Question
  ) -> AsyncThrowingStream<Key.Answer, any Error> {
    let (stream, continuation) = AsyncThrowingStream<Key.Answer, any Error>.makeStream()
    let warnings = RuntimeWarning.Handler.current
    // The worker stopped iterating (or its task was cancelled): what feeds the stream stops
    // too, the host's call or the forwarding of the worker's own answers.
    let feeding = Stoppable()
    continuation.onTermination = { _ in feeding.stop() }
    // When the host cannot answer: the worker's own value's answers, with a warning.
    let ownAnswers: @Sendable (String) -> Void = { problem in
      warnNoAnswer(Key.self, problem, to: warnings)
      let own = Key.answers(question, with: ownValue(Key.self))
      let forwarding = Task {
        do {
          for try await answer in own { continuation.yield(answer) }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      feeding.add { forwarding.cancel() }
    }
    guard let bytes = try? BinaryEncoder().encode(question) else {
      ownAnswers("the question does not encode")
      return stream
    }
    let token = effects.stream(revision: revision, key: CrossingKeys.name(of: Key.self), question: bytes) { resumption in
      switch resumption {
      case let .element(answer):
        do {
          continuation.yield(try BinaryDecoder().decode(Key.Answer.self, from: answer))
        } catch {
          continuation.finish(throwing: error)
        }
      case let .ended(.finished(sent)):
        report(sent, to: warnings)
        continuation.finish()
      case let .ended(.threw(thrown, sent)):
        report(sent, to: warnings)
        continuation.finish(throwing: thrown.error)
      case let .ended(.refused(reason)):
        ownAnswers(reason)
      case .ended(.answered):
        ownAnswers("the host answered a stream with one answer")
      case .cancelled:
        continuation.finish(throwing: CancellationError())
      default:
        continuation.finish(throwing: RemoteCallError.peerDisconnected)
      }
    }
    // After the stream's end the call is over, and cancelling it does nothing.
    if let token { feeding.add { [effects] in effects.cancel(call: token) } }
    return stream
  }

  private func report(_ warnings: [String], to handler: RuntimeWarning.Handler) {
    for warning in warnings { handler.report(warning, at: SourceLocation(fileID: #fileID, line: #line)) }
  }

  private func warnNoAnswer<Key: DependencyKey>(_: Key.Type, _ problem: String, to handler: RuntimeWarning.Handler) {
    handler.report(
      """
      The worker of boundary "\(boundary)" asked the host for \(readableName(of: Key.self)) and got no \
      answer: \(problem). It used its own \(context == .test ? "test" : "live") value instead.
      """, at: SourceLocation(fileID: #fileID, line: #line))
  }

  private func ownValue<Key: DependencyKey>(_: Key.Type) -> Key.Value {
    context == .test ? Key.testValue : Key.liveValue
  }

  func warnOverrideStaysOnHost<Key: DependencyKey>(_: Key.Type) {
    let name = readableName(of: Key.self)
    RuntimeWarning.report(
      """
      The dependency \(name) is overridden on the host, but the override cannot reach the \
      worker of boundary "\(boundary)", which used its own \(context == .test ? "test" : "live") \
      value: \(name) is not a CrossingDependencyKey, and a value with closures cannot cross \
      between processes.

      To fix it, conform \(name) to CrossingDependencyKey (a Codable value crosses as it is; \
      a client's calls can be answered by the host), or to AsyncCrossingDependencyKey if its \
      calls are async, or keep "\(boundary)" in the host's process (remove it from the placement).
      """, at: SourceLocation(fileID: #fileID, line: #line))
  }
}

/// The keys a worker has warned about already, so that each warns once.
final class WarnedKeys: Sendable {
  private let names = Mutex<Set<String>>([])

  /// Whether `name` is warned about for the first time; from now on it is not.
  func isFirst(_ name: String) -> Bool {
    names.withLock { $0.insert(name).inserted }
  }
}

/// What the host's client threw, on its way out of `Asker.call` past the catch that turns the
/// worker's own failures (a question that does not encode, an answer that does not decode)
/// into a warning.
private struct HostThrew: Error {
  let error: any Error
}

/// What to stop when a worker's stream of answers ends: stops added after the end run at once.
private final class Stoppable: Sendable {
  private let state = Mutex<(stopped: Bool, stops: [@Sendable () -> Void])>((false, []))

  func add(_ stop: @escaping @Sendable () -> Void) {
    let stopsNow = state.withLock { state in
      if !state.stopped { state.stops.append(stop) }
      return state.stopped
    }
    if stopsNow { stop() }
  }

  func stop() {
    for stop in state.withLock({ state in
      state.stopped = true
      defer { state.stops = [] }
      return state.stops
    }) {
      stop()
    }
  }
}
