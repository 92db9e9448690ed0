import Distributed
import Foundation
import Synchronization

/// A `DistributedActorSystem` over one authenticated Unix-socket connection between two
/// processes (a host and a worker). Each side hosts its own actors and calls the other's.
///
/// Calls are matched to replies by call id, thrown errors come back as `RemoteCallError`,
/// every call has a deadline, and when the peer goes away every call in flight fails at once
/// with `RemoteCallError.peerDisconnected`. Calls arriving from the peer start in the order
/// they were sent, on the thread that reads the connection (`executor`); a caller that prefers
/// that executor resumes there too, so a call costs no thread hop on either side.
///
/// ```swift
/// let system = SocketActorSystem(connection: try launch.connect())
/// let counter = Counter(actorSystem: system)          // hosted here
/// let remote = try Counter.resolve(id: id, using: system)  // a proxy to the peer's actor
/// try await remote.increment()
/// ```
package final class SocketActorSystem: DistributedActorSystem, Sendable {
  package typealias ActorID = SocketActorID
  package typealias InvocationEncoder = SocketInvocationEncoder
  package typealias InvocationDecoder = SocketInvocationDecoder
  package typealias ResultHandler = SocketResultHandler
  package typealias SerializationRequirement = WireCodable

  /// How long a call may take before it fails with `RemoteCallError.deadlineExceeded`.
  package let callTimeout: Duration

  private let writer: Mutex<Writer>
  /// Shuts the connection down without the writer's lock, which a blocked write may hold.
  private let shutdown: SocketShutdown
  private let state: Mutex<State>
  /// The thread that reads the connection, as an executor: calls from the peer run on it, and
  /// callers that prefer it (`withTaskExecutorPreference`) resume on it without a thread hop.
  package let executor: ConnectionThread

  /// The writing half of the connection, and the numbers this side gave the targets it
  /// called, which the peer learns from the first call to each.
  private struct Writer {
    let half: ConnectionHalf
    var targets: [String: UInt64] = [:]
  }

  private struct PendingCall {
    let continuation: UnsafeContinuation<[UInt8], any Error>
    let deadline: ContinuousClock.Instant
    let target: String
  }

  /// A call from the peer, as it arrived.
  private struct IncomingCall: Sendable {
    let id: UInt64
    let actor: SocketActorID
    /// The target's name: `RemoteCallTarget` is not `Sendable`, so the call carries its name.
    let target: String
    let arguments: [UInt8]
  }

  /// How many calls to well-known actors that are not hosted yet may wait for them.
  private static let maximumParkedCalls = 256
  /// How many targets the peer may name; its actors have far fewer distributed methods.
  private static let maximumTargets = 4_096

  private struct State {
    var nextActor = SocketActorID.firstAssigned
    var nextCall: UInt64 = 0
    var actors: [SocketActorID: any DistributedActor] = [:]
    /// Calls that arrived for a well-known actor before this process hosted it.
    var parked: [IncomingCall] = []
    /// Parked calls released to run but not started yet: calls arriving meanwhile queue
    /// behind them instead of starting at once, so that calls to one actor keep their order.
    var releasing = 0
    /// The targets the peer named, by the number it gave each.
    var targets: [UInt64: String] = [:]
    var pending: [UInt64: PendingCall] = [:]
    var isClosed = false
  }

  /// A system talking over `connection`, which must already be authenticated. Starts a
  /// thread that reads the connection until the peer closes it.
  package init(connection: FramedConnection, callTimeout: Duration = .seconds(10)) {
    self.callTimeout = callTimeout
    writer = Mutex(Writer(half: ConnectionHalf(connection: FramedConnection(connection.socket))))
    shutdown = connection.socket.shutdownHandle
    state = Mutex(State())
    executor = ConnectionThread()
    // Weak: the reading thread must not keep alive a system that nobody uses.
    executor.start(
      reading: ConnectionHalf(connection: connection), idleWait: callTimeout,
      handlers: ConnectionThread.Handlers(
        frame: { [weak self] in self?.receive($0) ?? false },
        nextDeadline: { [weak self] in self?.nextDeadline },
        expire: { [weak self] in self?.expireCalls(at: $0) },
        end: { [weak self] in self?.peerDidDisconnect() }))
  }

  /// Stops talking to the peer: in-flight calls fail and the reader thread ends.
  package func close() {
    shutdown.shutdown()
  }

  // MARK: Actor lifecycle

  package func assignID<Actor: DistributedActor>(_ actorType: Actor.Type) -> SocketActorID
  where Actor.ID == SocketActorID {
    state.withLock { state in
      state.nextActor += 1
      return SocketActorID(number: state.nextActor)
    }
  }

  package func actorReady<Actor: DistributedActor>(_ actor: Actor) where Actor.ID == SocketActorID {
    state.withLock { $0.actors[actor.id] = actor }
  }

  package func resignID(_ id: SocketActorID) {
    _ = state.withLock { $0.actors.removeValue(forKey: id) }
  }

  package func resolve<Actor: DistributedActor>(
    id: SocketActorID, as actorType: Actor.Type
  ) throws -> Actor? where Actor.ID == SocketActorID {
    state.withLock { $0.actors[id] } as? Actor
  }

  /// Makes `id` the name of the next actor of this system, so that the peer can address it by
  /// a name both sides know. Calls the peer made to `id` before it was hosted run now, in order.
  package func hosting<Actor: DistributedActor>(
    _ id: SocketActorID, _ make: (SocketActorSystem) -> Actor
  ) -> Actor where Actor.ID == SocketActorID {
    let actor = make(self)
    state.withLock { state in
      state.actors.removeValue(forKey: actor.id)
      state.actors[id] = actor
      // Queued under the lock, so that no later call to `id` can start before them.
      for call in state.parked where call.actor == id {
        state.releasing += 1
        Task(executorPreference: executor) {
          self.state.withLock { $0.releasing -= 1 }
          await self.execute(call)
        }
      }
      state.parked.removeAll { $0.actor == id }
    }
    return actor
  }

  package func makeInvocationEncoder() -> SocketInvocationEncoder { SocketInvocationEncoder() }

  // MARK: Calls out

  package func remoteCall<Actor: DistributedActor, Failure: Error, Success: WireCodable>(
    on actor: Actor, target: RemoteCallTarget, invocation: inout SocketInvocationEncoder,
    throwing: Failure.Type, returning: Success.Type
  ) async throws -> Success where Actor.ID == SocketActorID {
    var reader = ByteReader(try await call(actor.id, target: target, arguments: invocation.arguments.bytes))
    let value = try Success(from: &reader)
    guard reader.isAtEnd else { throw TransportError.malformed("bytes left over after the result of \(target)") }
    return value
  }

  package func remoteCallVoid<Actor: DistributedActor, Failure: Error>(
    on actor: Actor, target: RemoteCallTarget, invocation: inout SocketInvocationEncoder,
    throwing: Failure.Type
  ) async throws where Actor.ID == SocketActorID {
    _ = try await call(actor.id, target: target, arguments: invocation.arguments.bytes)
  }

  private func call(
    _ actor: SocketActorID, target: RemoteCallTarget, arguments: [UInt8]
  ) async throws -> [UInt8] {
    let id = state.withLock { state -> UInt64 in
      state.nextCall += 1
      return state.nextCall
    }
    let identifier = target.identifier
    let deadline = ContinuousClock.now + callTimeout
    // Unsafe rather than checked: `pending` hands each continuation out exactly once (to the
    // reply, the deadline, or the peer's end), and the check costs every call.
    return try await withUnsafeThrowingContinuation { continuation in
      let isClosed = state.withLock { state in
        if !state.isClosed {
          state.pending[id] = PendingCall(continuation: continuation, deadline: deadline, target: identifier)
        }
        return state.isClosed
      }
      guard !isClosed else { return continuation.resume(throwing: RemoteCallError.peerDisconnected) }
      do {
        try writer.withLock { writer in
          let number = writer.targets[identifier]
          let assigned = number ?? UInt64(writer.targets.count)
          if number == nil { writer.targets[identifier] = assigned }
          let envelope = Envelope.call(
            id: id, actor: actor, target: assigned, definition: number == nil ? identifier : nil,
            arguments: arguments)
          try writer.half.connection.send(envelope.frame)
        }
      } catch {
        fail(call: id, with: RemoteCallError.peerDisconnected)
      }
    }
  }

  private func fail(call id: UInt64, with error: any Error) {
    state.withLock { $0.pending.removeValue(forKey: id) }?.continuation.resume(throwing: error)
  }

  /// When the oldest call in flight runs out of time.
  private var nextDeadline: ContinuousClock.Instant? {
    state.withLock { $0.pending.values.lazy.map(\.deadline).min() }
  }

  private func expireCalls(at now: ContinuousClock.Instant) {
    let expired = state.withLock { state -> [PendingCall] in
      // Most wake-ups find nothing due: check before building anything.
      guard state.pending.values.contains(where: { $0.deadline <= now }) else { return [] }
      let due = state.pending.filter { $0.value.deadline <= now }
      for id in due.keys { state.pending[id] = nil }
      return Array(due.values)
    }
    for call in expired {
      call.continuation.resume(throwing: RemoteCallError.deadlineExceeded(call.target, callTimeout))
    }
  }

  fileprivate func send(_ envelope: Envelope) throws {
    let frame = envelope.frame
    try writer.withLock { try $0.half.connection.send(frame) }
  }

  // MARK: Calls in

  /// Handles one frame from the peer on the reading thread; false ends the connection.
  private func receive(_ frame: Frame) -> Bool {
    guard let envelope = try? Envelope(frame) else { return false }
    switch envelope {
    case let .call(id, actor, number, definition, arguments):
      enum Decision { case start(IncomingCall), queue(IncomingCall), parked, refused, violation }
      let decision = state.withLock { state -> Decision in
        if let definition {
          guard state.targets[number] == nil, state.targets.count < Self.maximumTargets else { return .violation }
          state.targets[number] = definition
        }
        guard let target = state.targets[number] else { return .violation }
        let call = IncomingCall(id: id, actor: actor, target: target, arguments: arguments)
        guard state.actors[actor] == nil, actor.number < SocketActorID.firstAssigned else {
          return state.releasing == 0 ? .start(call) : .queue(call)
        }
        guard state.parked.count < Self.maximumParkedCalls else { return .refused }
        state.parked.append(call)
        return .parked
      }
      switch decision {
      case let .start(call):
        // Runs here, on the reading thread, until the call first waits: no task is queued
        // for it, and calls start in the order they arrived.
        Task.immediate(executorPreference: executor) { await self.execute(call) }
      case let .queue(call):
        Task(executorPreference: executor) { await self.execute(call) }
      case .parked:
        break
      case .refused:
        try? send(.failure(id: id, message: "Too many calls wait for actors not hosted yet."))
      case .violation:
        // A target number never named, or named twice: the peer is not speaking this protocol.
        return false
      }
    case let .reply(id, value):
      state.withLock { $0.pending.removeValue(forKey: id) }?.continuation.resume(returning: value)
    case let .failure(id, message):
      fail(call: id, with: RemoteCallError.remote(message))
    }
    return true
  }

  /// The connection ended, or the peer broke the protocol: fail every call in flight, and
  /// shut the socket down so that the peer sees the end too.
  private func peerDidDisconnect() {
    shutdown.shutdown()
    let pending = state.withLock { state in
      state.isClosed = true
      defer { state.pending = [:] }
      return state.pending.values
    }
    for call in pending { call.continuation.resume(throwing: RemoteCallError.peerDisconnected) }
  }

  /// Runs `target` on the actor `id` of this process as a call from the peer would run, with
  /// `arguments` laid out as a caller's encoder lays them out, and drops the result: what
  /// finding and invoking a distributed target costs, for the benchmark.
  package func invokeLocally(_ id: SocketActorID, target: String, arguments: [UInt8]) async throws {
    guard let actor = state.withLock({ $0.actors[id] }) else { throw RemoteCallError.remote("No actor \(id).") }
    var decoder = SocketInvocationDecoder(arguments: arguments)
    try await executeDistributedTarget(
      on: actor, target: RemoteCallTarget(target), invocationDecoder: &decoder,
      handler: SocketResultHandler(system: nil, call: 0))
  }

  /// The names of the targets this side has called, for `invokeLocally`.
  package var calledTargets: [String] { writer.withLock { Array($0.targets.keys) } }

  private func execute(_ call: IncomingCall) async {
    let handler = SocketResultHandler(system: self, call: call.id)
    guard let actor = state.withLock({ $0.actors[call.actor] }) else {
      try? send(.failure(id: call.id, message: "No actor \(call.actor) in this process."))
      return
    }
    var decoder = SocketInvocationDecoder(arguments: call.arguments)
    do {
      try await executeDistributedTarget(
        on: actor, target: RemoteCallTarget(call.target), invocationDecoder: &decoder, handler: handler)
    } catch {
      try? send(.failure(id: call.id, message: "\(error)"))
    }
  }
}

/// The name of an actor, unique within its system: a number. Numbers below
/// `SocketActorID.firstAssigned` are left for well-known actors that both processes name.
package struct SocketActorID: Hashable, Codable, Sendable, CustomStringConvertible {
  package let number: UInt64
  package init(number: UInt64) { self.number = number }
  package var description: String { "actor-\(number)" }

  /// The first number `assignID` hands out.
  package static let firstAssigned: UInt64 = 1 << 32
}

/// Why a remote call failed.
package enum RemoteCallError: Error, Equatable, CustomStringConvertible {
  /// The remote actor threw; its error's description.
  case remote(String)
  /// No reply came in time.
  case deadlineExceeded(String, Duration)
  /// The connection to the peer is gone.
  case peerDisconnected

  package var description: String {
    switch self {
    case let .remote(message): "The remote call threw: \(message)"
    case let .deadlineExceeded(target, timeout): "No reply to \(target) within \(timeout)."
    case .peerDisconnected: "The peer process disconnected; the call may or may not have run."
    }
  }
}

/// One direction of a connection, handed to exactly one owner.
final class ConnectionHalf: @unchecked Sendable {
  // Safe: the reading half is used only by the reader thread once the initializer hands it
  // over; the writing half only inside the system's writer mutex. The two halves share the
  // socket's descriptor, on which one reader and one writer may act at the same time.
  let connection: FramedConnection
  init(connection: FramedConnection) { self.connection = connection }
}

/// Records the arguments of a call, each written by its own layout, one after another.
package struct SocketInvocationEncoder: DistributedTargetInvocationEncoder {
  package typealias SerializationRequirement = WireCodable
  var arguments = ByteWriter()

  package mutating func recordGenericSubstitution<T>(_ type: T.Type) throws {
    throw RemoteCallError.remote("Generic distributed methods are not supported.")
  }

  package mutating func recordArgument<Value: WireCodable>(_ argument: RemoteCallArgument<Value>) throws {
    argument.value.write(to: &arguments)
  }

  package mutating func recordErrorType<E: Error>(_ type: E.Type) throws {}
  package mutating func recordReturnType<R: WireCodable>(_ type: R.Type) throws {}
  package mutating func doneRecording() throws {}
}

/// Reads a call's arguments, one at a time, in the order they were recorded.
package struct SocketInvocationDecoder: DistributedTargetInvocationDecoder {
  package typealias SerializationRequirement = WireCodable
  var reader: ByteReader

  init(arguments: [UInt8]) { reader = ByteReader(arguments) }

  package mutating func decodeGenericSubstitutions() throws -> [any Any.Type] { [] }

  package mutating func decodeNextArgument<Argument: WireCodable>() throws -> Argument {
    try Argument(from: &reader)
  }

  package mutating func decodeErrorType() throws -> (any Any.Type)? { nil }
  package mutating func decodeReturnType() throws -> (any Any.Type)? { nil }
}

/// Sends the outcome of a call back to the caller.
package struct SocketResultHandler: DistributedTargetInvocationResultHandler {
  package typealias SerializationRequirement = WireCodable
  /// Where the outcome goes; nil drops it (`invokeLocally`).
  let system: SocketActorSystem?
  let call: UInt64

  package func onReturn<Success: WireCodable>(value: Success) async throws {
    var writer = ByteWriter()
    value.write(to: &writer)
    try system?.send(.reply(id: call, value: writer.bytes))
  }

  package func onReturnVoid() async throws {
    try system?.send(.reply(id: call, value: []))
  }

  package func onThrow<Err: Error>(error: Err) async throws {
    try system?.send(.failure(id: call, message: "\(error)"))
  }
}
