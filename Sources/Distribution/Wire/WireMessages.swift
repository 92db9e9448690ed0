import Bulkhead
internal import Transport
import Synchronization

/// The messages between the host and a worker: the arguments and results of the endpoints'
/// distributed methods. On the control connection the host calls the worker's
/// `BoundaryEndpoint` with one request at a time, synchronously inside its reducer; on the
/// effects connection the `HostEndpoint` and the `WorkerEffectsEndpoint` deliver each other
/// everything that happens later.
///
/// Every action pays for these messages twice, so they lay out their own bytes (see
/// `WireLayout.swift`) instead of going through `Codable`.
package enum Wire {
  /// A state version that means "nothing": a request based on it replaces the worker's copy.
  static let emptyVersion: UInt64 = 0

  /// The layout of these messages; a worker of another layout is refused at its greeting.
  static let layoutVersion: UInt64 = 12

  /// Worker → host, the answer to the host's first call: what the worker serves, so that a
  /// worker built from other code is refused before it sees an action, or why it serves
  /// nothing. Laid out after the layout version, which the host reads first.
  enum Hello: Equatable, Sendable {
    case serving(Greeting)
    case refusing(Refusal)
    /// A worker of the composition's warm pool: connected, serving no boundary until the
    /// host assigns it one (`Request.assign`).
    case warm
  }

  /// What a warm worker is started for in place of a boundary: `*` names no boundary, as in
  /// a placement file's line for every boundary.
  static let warmBoundary = "*"

  /// What a worker serves: a boundary, and the types of its child.
  struct Greeting: Equatable, Sendable, CustomStringConvertible {
    var boundary: String
    var state: String
    var action: String

    /// What a worker for `boundary` of a child with these types says.
    init<Child: Reducer>(boundary: String, child _: Child.Type) {
      self.boundary = boundary
      state = Self.name(of: Child.State.self)
      action = Self.name(of: Child.Action.self)
    }

    /// Types' full names, made once each (`String(reflecting:)` demangles on every call): a
    /// host greets each worker it starts, and a worker template makes them for its forks.
    private static let names = Mutex<[ObjectIdentifier: String]>([:])

    private static func name(of type: Any.Type) -> String {
      if let known = names.withLock({ $0[ObjectIdentifier(type)] }) { return known }
      let name = String(reflecting: type)
      names.withLock { $0[ObjectIdentifier(type)] = name }
      return name
    }

    init(boundary: String, state: String, action: String) {
      (self.boundary, self.state, self.action) = (boundary, state, action)
    }

    var description: String {
      "\(boundary) (\(state), \(action))"
    }
  }

  /// Why a worker serves nothing: the host started it for an app or a boundary it does not
  /// have. Only the worker knows the apps its executable has, so it says so in its greeting.
  enum Refusal: Equatable, Sendable {
    /// The worker's executable has no app named `app`; it has `apps`.
    case unknownApp(String, apps: [String])
    /// The worker's app has no boundary at `path`; it has `boundaries`. `app` and `apps` are
    /// the app and the apps of the worker's executable, nil and empty for a worker that
    /// serves one root (`BoundaryWorker.serve(_:boundary:)`).
    case unknownBoundary(String, app: String?, boundaries: [String], apps: [String])
    /// A warm worker could not take the boundary at `path` it was assigned, for `reason`.
    case cannotServe(String, reason: String)

    /// What is wrong, said of the worker named `worker`, started from `executable`.
    func explanation(worker: String, executable: String) -> String {
      switch self {
      case let .unknownApp(app, apps):
        """
        worker \(worker) was asked for app "\(app)", which \(executable) does not serve; it serves \
        \(Self.list(apps)). Is the app's name in the WorkerCommand right?
        """
      case let .unknownBoundary(path, app?, boundaries, apps):
        """
        worker \(worker) was asked for boundary "\(path)" of app "\(app)", which has no such boundary \
        (its boundaries: \(Self.list(boundaries))); \(executable) serves the apps \(Self.list(apps)). \
        Is the app's name in the WorkerCommand right?
        """
      case let .unknownBoundary(path, nil, boundaries, _):
        """
        worker \(worker) was asked for boundary "\(path)", which its app does not have (its \
        boundaries: \(Self.list(boundaries))); rebuild \(executable) with the host
        """
      case let .cannotServe(path, reason):
        "warm worker \(worker) could not take boundary \"\(path)\": \(reason)"
      }
    }

    private static func list(_ names: [String]) -> String {
      names.isEmpty ? "none" : names.joined(separator: ", ")
    }
  }

  /// Host → worker: `BoundaryEndpoint.handle(_:)`.
  enum Request: Equatable, Sendable {
    /// Bring `slot` from `baseVersion` up to date with `patch` if any, then run `action` with
    /// the host's dependencies: those of `dependencies`, or the last ones sent when nil. Hold
    /// the reply `holdReply` milliseconds before sending it (`slow`; 0: not at all).
    case run(
      slot: [UInt8], baseVersion: UInt64, patch: StatePatch?, action: [UInt8], dependencies: DependencyHeader?,
      holdReply: UInt64 = 0)
    /// Forget the state of `slot`.
    case drop(slot: [UInt8])
    /// Answer at once: the host checks that an idle worker still answers.
    case ping
    /// To a warm worker: serve `boundary` from now on, placing the boundaries inside it as
    /// `brief` says (`InnerPlacement`); the reply is `assigned` with the worker's greeting.
    case assign(boundary: String, brief: String)
  }

  /// Worker → host: what `BoundaryEndpoint.handle(_:)` replies, inside an `Answer`.
  enum Reply: Equatable, Sendable {
    /// The action ran, with this outcome.
    case ran(Outcome)
    /// The worker's copy is not at the version the request was based on.
    case stale(version: UInt64)
    case dropped
    case failed(String)
    /// The answer to `ping`.
    case pong
    /// The answer to `assign`: what the worker now serves, or why it serves nothing.
    case assigned(Hello)
  }

  /// What a worker needs to know of the host's dependency values at a boundary; sent with a
  /// `run` request only when they changed since the last one sent on the link (always on a
  /// fresh link), so that an unchanged set costs one byte.
  struct DependencyHeader: Equatable, Sendable {
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
  enum DependencyAnswer: Equatable, Sendable {
    /// The encoded answer, and the runtime warnings the host's value raised while answering,
    /// which the worker reports as its own.
    case answered([UInt8], warnings: [String])
    /// The host could not answer, for this reason.
    case refused(String)
  }

  /// Worker → host: the reply to a request, the runtime warnings the worker raised while it
  /// handled the request, for the host to report, and how long handling it took the worker,
  /// for the host's timings.
  struct Answer: Equatable, Sendable {
    var warnings: [String]
    var reply: Reply
    var handlingNanoseconds: UInt64 = 0
  }

  /// Host → worker, on the effects connection: what `WorkerEffectsEndpoint.deliver(_:)`
  /// carries. A worker's message cannot be read as one of these (`WireLayout.swift`): each
  /// side decodes only what the other may send it.
  enum HostMessage: Equatable, Sendable {
    /// Start the effect body `run`.
    case start(run: UInt64)
    /// Cancel `run`.
    case cancel(run: UInt64)
    /// The host has processed action `sequence`, and took the worker's precomputed outcome
    /// for it or not.
    case processed(sequence: UInt64, tookOutcome: Bool)
    /// The sleep `token` is over.
    case woke(token: UInt64)
    /// Send `settled` from now on; a test store is waiting on these effects.
    case reportSettling
    /// Answer with `pong` at once; the host checks the connection still moves.
    case ping(token: UInt64)
    /// The answer to question `token`.
    case answer(token: UInt64, DependencyAnswer)
    /// One answer of the stream that answers call `token`; more may follow.
    case callElement(token: UInt64, [UInt8])
    /// Call `token` is over, as `end` says.
    case callEnded(token: UInt64, CallEnd)

    /// Whether the message can set a worker's effect body going again: the host counts
    /// these, and the worker's `settled` says how many it has caught up with. An answer to a
    /// synchronous question wakes nothing that waits on the host: the asking body runs on,
    /// blocked. A call's answers wake the body that awaits them.
    var wakesWorker: Bool {
      switch self {
      case .start, .cancel, .processed, .woke, .callElement, .callEnded: true
      case .reportSettling, .ping, .answer: false
      }
    }
  }

  /// Worker → host, on the effects connection: what `HostEndpoint.deliver(_:)` carries.
  enum WorkerMessage: Equatable, Sendable {
    /// `run` sent an action, numbered `sequence`, with what the child reducer makes of it on
    /// the worker's copy, if the worker could tell.
    case action(run: UInt64, sequence: UInt64, bytes: [UInt8], outcome: Outcome?)
    /// `run` ended, after the worker had numbered its effect actions up to `lastAction`: the
    /// host, which has them all by then, can tell one that went missing.
    case finished(run: UInt64, lastAction: UInt64)
    /// `run` sleeps for `nanoseconds` on the host's clock; wake it with `token`.
    case sleep(run: UInt64, token: UInt64, nanoseconds: UInt64)
    /// Every effect body is finished or waiting on the host, after the first `count` of the
    /// host's messages that can wake one (`HostMessage.wakesWorker`).
    case settled(count: UInt64)
    /// The answer to the host's `ping`.
    case pong(token: UInt64)
    /// A call on a crossing dependency, for the host to answer with its value of `key` at
    /// `revision`; the worker waits for the `answer` with `token`.
    case question(token: UInt64, revision: UInt64, key: String, bytes: [UInt8])
    /// Effect body `run` raised a runtime warning, for the host to report where the proxy of
    /// `run` runs.
    case warning(run: UInt64, message: String)
    /// Effect body `run` called `dismiss()` in a feature inside a presented destination or a
    /// stack element that the host presents: the host's proxy of `run` dismisses it there, after
    /// the actions `run` sent before.
    case dismiss(run: UInt64)
    /// An async call on a crossing dependency, for the host to answer in a task of its own.
    case call(Call)
    /// The worker no longer waits for call `token` (its task was cancelled, or it stopped
    /// iterating the call's stream): the host cancels its task.
    case cancelCall(token: UInt64)
  }

  /// Worker → host: an async call on a crossing dependency (`AsyncCrossingDependencyKey`),
  /// which the host answers with its value of `key` at `revision`, with `callEnded` (and,
  /// for a call that `streams`, `callElement` first, once per answer).
  struct Call: Equatable, Sendable {
    var token: UInt64
    /// The effect body that asks, whose proxy's executor the host answers on (a test store
    /// waits for it); 0 when no body asks (a task the body did not wait for).
    var run: UInt64
    var revision: UInt64
    var key: String
    var question: [UInt8]
    var streams: Bool
  }

  /// Host → worker: how the host ended a call.
  enum CallEnd: Equatable, Sendable {
    /// The encoded answer of a call that does not stream; with each end, the runtime
    /// warnings the host's value raised while answering, which the worker reports as its own.
    case answered([UInt8], warnings: [String])
    /// The stream that answered the call finished.
    case finished(warnings: [String])
    /// The host's client threw.
    case threw(Thrown, warnings: [String])
    /// The host could not answer, for this reason.
    case refused(String)
  }

  /// What running an action on a slot at `baseVersion` gave: the slot is now at `version`,
  /// changed by `patch` if it changed, and the child's effects are `effect`. A request's reply
  /// carries one; so does an effect's action, so that the host need not ask when its copy of
  /// the slot is still at `baseVersion`.
  struct Outcome: Equatable, Sendable {
    var baseVersion: UInt64
    var version: UInt64
    var patch: StatePatch?
    var effect: PortableEffect
  }

  /// The bytes of `message`.
  static func encode(_ message: some WireCodable) -> [UInt8] {
    var writer = ByteWriter()
    message.write(to: &writer)
    return writer.bytes
  }

  /// The message in `bytes`, all of them.
  static func decode<Message: WireCodable>(_: Message.Type, from bytes: [UInt8]) throws(DistributionError) -> Message {
    do {
      var reader = ByteReader(bytes)
      let message = try Message(from: &reader)
      guard reader.isAtEnd else { throw TransportError.malformed("bytes left over after the message") }
      return message
    } catch {
      throw .protocolViolation("a \(Message.self) does not decode: \(error)")
    }
  }
}
