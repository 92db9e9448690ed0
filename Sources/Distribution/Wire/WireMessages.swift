import Bulkhead
internal import Transport

/// The messages between the host and a worker. The control connection carries one request and
/// its reply at a time, synchronously inside the host's reducer; the effects connection carries
/// everything that happens later, in both directions.
///
/// Every action pays for these messages twice, so they lay out their own bytes (see
/// `WireLayout.swift`) instead of going through `Codable`.
enum Wire {
  /// A state version that means "nothing": a request based on it replaces the worker's copy.
  static let emptyVersion: UInt64 = 0

  /// The layout of these messages; a worker of another layout is refused at its greeting.
  static let layoutVersion: UInt64 = 5

  /// Worker → host, the first frame on the control connection: what the worker serves, so
  /// that a worker built from other code is refused before it sees an action.
  struct Greeting: Equatable, CustomStringConvertible {
    var layoutVersion = Wire.layoutVersion
    var boundary: String
    var state: String
    var action: String

    /// What a worker for `boundary` of a child with these types says.
    init<Child: Reducer>(boundary: String, child _: Child.Type) {
      self.boundary = boundary
      state = String(reflecting: Child.State.self)
      action = String(reflecting: Child.Action.self)
    }

    init(layoutVersion: UInt64, boundary: String, state: String, action: String) {
      (self.layoutVersion, self.boundary, self.state, self.action) = (layoutVersion, boundary, state, action)
    }

    var description: String {
      "\(boundary) (\(state), \(action)) in wire layout \(layoutVersion)"
    }
  }

  /// Host → worker, on the control connection.
  enum Request: Equatable {
    /// Bring `slot` from `baseVersion` up to date with `patch` if any, then run `action` with
    /// the host's dependencies: those of `dependencies`, or the last ones sent when nil.
    case run(
      slot: [UInt8], baseVersion: UInt64, patch: StatePatch?, action: [UInt8], dependencies: DependencyHeader?)
    /// Forget the state of `slot`.
    case drop(slot: [UInt8])
    /// Answer at once: the host checks that an idle worker still answers.
    case ping
  }

  /// Worker → host, on the control connection.
  enum Reply: Equatable {
    /// The action ran, with this outcome.
    case ran(Outcome)
    /// The worker's copy is not at the version the request was based on.
    case stale(version: UInt64)
    case dropped
    case failed(String)
    /// The answer to `ping`.
    case pong
  }

  /// What a worker needs to know of the host's dependency values at a boundary; sent with a
  /// `run` request only when they changed since the last one sent on the link (always on a
  /// fresh link), so that an unchanged set costs one byte.
  struct DependencyHeader: Equatable {
    /// The values' `DependencyValues.revision`: the worker's questions name it, so that the
    /// host answers with the values in force when the reducer or effect that asks started.
    var revision: UInt64
    var context: DependencyContext
    /// The crossing keys overridden on the host, by `CrossingKeys.name(of:)`: the worker asks
    /// the host for these even where it could make the value itself.
    var answeredByHost: [String]
    /// The keys overridden on the host that cannot cross (not process-local either): a worker
    /// that uses one warns that the override does not reach it.
    var stayingOnHost: [String]
  }

  /// Host → worker: the answer to a worker's question about a crossing dependency.
  enum DependencyAnswer: Equatable {
    /// The encoded answer, and the runtime warnings the host's value raised while answering,
    /// which the worker reports as its own.
    case answered([UInt8], warnings: [String])
    /// The host could not answer, for this reason.
    case refused(String)
  }

  /// Worker → host, on the control connection, before the reply to a request: a runtime
  /// warning raised while the worker handled it, for the host to report.
  struct Warning: Equatable {
    var message: String
  }

  /// Either way, on the effects connection.
  enum EffectMessage: Equatable {
    /// Host → worker: start the effect body `run`.
    case start(run: UInt64)
    /// Host → worker: cancel `run`.
    case cancel(run: UInt64)
    /// Host → worker: the host has processed action `sequence`, and took the worker's
    /// precomputed outcome for it or not.
    case processed(sequence: UInt64, tookOutcome: Bool)
    /// Worker → host: `run` sent an action, numbered `sequence`, with what the child reducer
    /// makes of it on the worker's copy, if the worker could tell.
    case action(run: UInt64, sequence: UInt64, bytes: [UInt8], outcome: Outcome?)
    /// Worker → host: `run` ended.
    case finished(run: UInt64)
    /// Worker → host: `run` sleeps for `nanoseconds` on the host's clock; wake it with `token`.
    case sleep(run: UInt64, token: UInt64, nanoseconds: UInt64)
    /// Host → worker: the sleep `token` is over.
    case woke(token: UInt64)
    /// Worker → host: every effect body is finished or waiting on the host, after the first
    /// `count` of the host's messages that can wake one (start, cancel, processed, woke).
    case settled(count: UInt64)
    /// Host → worker: send `settled` from now on; a test store is waiting on these effects.
    case reportSettling
    /// Host → worker: answer with `pong` at once; the host checks the connection still moves.
    case ping(token: UInt64)
    /// Worker → host: the answer to `ping`.
    case pong(token: UInt64)
    /// Worker → host: a call on a crossing dependency, for the host to answer with its value
    /// of `key` at `revision`; the worker waits for the `answer` with `token`.
    case question(token: UInt64, revision: UInt64, key: String, bytes: [UInt8])
    /// Host → worker: the answer to question `token`.
    case answer(token: UInt64, DependencyAnswer)
    /// Worker → host: effect body `run` raised a runtime warning, for the host to report
    /// where the proxy of `run` runs.
    case warning(run: UInt64, message: String)

    /// Whether the message, from the host, can set a worker's effect body going again: the
    /// host counts these, and the worker's `settled` says how many it has caught up with.
    var wakesWorker: Bool {
      switch self {
      case .start, .cancel, .processed, .woke: true
      // An answer wakes nothing that waits on the host: the asking body runs on, blocked.
      case .action, .finished, .sleep, .settled, .reportSettling, .ping, .pong, .question, .answer, .warning: false
      }
    }
  }

  /// What running an action on a slot at `baseVersion` gave: the slot is now at `version`,
  /// changed by `patch` if it changed, and the child's effects are `effect`. A request's reply
  /// carries one; so does an effect's action, so that the host need not ask when its copy of
  /// the slot is still at `baseVersion`.
  struct Outcome: Equatable {
    var baseVersion: UInt64
    var version: UInt64
    var patch: StatePatch?
    var effect: PortableEffect
  }

  static func frame<Message: WireMessage>(_ message: Message) -> Frame {
    var writer = ByteWriter()
    message.write(to: &writer)
    return Frame(kind: Message.frameKind, payload: writer.bytes)
  }

  static func decode<Message: WireMessage>(
    _: Message.Type, from frame: Frame
  ) throws(DistributionError) -> Message {
    guard frame.kind == Message.frameKind else {
      throw .protocolViolation("expected a \(Message.self) frame (kind \(Message.frameKind)), got kind \(frame.kind)")
    }
    do {
      var reader = ByteReader(frame.payload)
      let message = try Message(from: &reader)
      guard reader.isAtEnd else { throw TransportError.malformed("bytes left over after the message") }
      return message
    } catch {
      throw .protocolViolation("a \(Message.self) frame does not decode: \(error)")
    }
  }
}

/// A message that lays out its own bytes on the wire.
protocol WireMessage {
  static var frameKind: UInt8 { get }
  func write(to writer: inout ByteWriter)
  init(from reader: inout ByteReader) throws(TransportError)
}
