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
public final class SocketActorSystem: DistributedActorSystem, Sendable {
  public typealias ActorID = SocketActorID
  public typealias InvocationEncoder = SocketInvocationEncoder
  public typealias InvocationDecoder = SocketInvocationDecoder
  public typealias ResultHandler = SocketResultHandler
  public typealias SerializationRequirement = Codable

  /// How long a call may take before it fails with `RemoteCallError.deadlineExceeded`.
  public let callTimeout: Duration

  private let writer: Mutex<ConnectionHalf>
  private let state: Mutex<State>
  /// The thread that reads the connection, as an executor: calls from the peer run on it, and
  /// callers that prefer it (`withTaskExecutorPreference`) resume on it without a thread hop.
  public let executor: ConnectionThread

  private struct PendingCall {
    let continuation: CheckedContinuation<[UInt8], any Error>
    let deadline: ContinuousClock.Instant
    let target: String
  }

  /// A call from the peer, as it arrived.
  private struct IncomingCall {
    let id: UInt64
    let actor: SocketActorID
    let target: String
    let arguments: [[UInt8]]
  }

  /// How many calls to well-known actors that are not hosted yet may wait for them.
  private static let maximumParkedCalls = 256

  private struct State {
    var nextActor = SocketActorID.firstAssigned
    var nextCall: UInt64 = 0
    var actors: [SocketActorID: any DistributedActor] = [:]
    /// Calls that arrived for a well-known actor before this process hosted it.
    var parked: [IncomingCall] = []
    var pending: [UInt64: PendingCall] = [:]
    var isClosed = false
  }

  /// A system talking over `connection`, which must already be authenticated. Starts a
  /// thread that reads the connection until the peer closes it.
  public init(connection: FramedConnection, callTimeout: Duration = .seconds(10)) {
    self.callTimeout = callTimeout
    writer = Mutex(ConnectionHalf(connection: FramedConnection(connection.socket)))
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
  public func close() {
    writer.withLock { $0.connection.socket.shutdown() }
  }

  // MARK: Actor lifecycle

  public func assignID<Actor: DistributedActor>(_ actorType: Actor.Type) -> SocketActorID
  where Actor.ID == SocketActorID {
    state.withLock { state in
      state.nextActor += 1
      return SocketActorID(number: state.nextActor)
    }
  }

  public func actorReady<Actor: DistributedActor>(_ actor: Actor) where Actor.ID == SocketActorID {
    state.withLock { $0.actors[actor.id] = actor }
  }

  public func resignID(_ id: SocketActorID) {
    _ = state.withLock { $0.actors.removeValue(forKey: id) }
  }

  public func resolve<Actor: DistributedActor>(
    id: SocketActorID, as actorType: Actor.Type
  ) throws -> Actor? where Actor.ID == SocketActorID {
    state.withLock { $0.actors[id] } as? Actor
  }

  /// Makes `id` the name of the next actor of this system, so that the peer can address it by
  /// a name both sides know. Calls the peer made to `id` before it was hosted run now, in order.
  public func hosting<Actor: DistributedActor>(
    _ id: SocketActorID, _ make: (SocketActorSystem) -> Actor
  ) -> Actor where Actor.ID == SocketActorID {
    let actor = make(self)
    state.withLock { state in
      state.actors.removeValue(forKey: actor.id)
      state.actors[id] = actor
      // Started under the lock, so that no later call to `id` can start before them.
      for call in state.parked where call.actor == id { start(call) }
      state.parked.removeAll { $0.actor == id }
    }
    return actor
  }

  public func makeInvocationEncoder() -> SocketInvocationEncoder { SocketInvocationEncoder() }

  // MARK: Calls out

  public func remoteCall<Actor: DistributedActor, Failure: Error, Success: Codable>(
    on actor: Actor, target: RemoteCallTarget, invocation: inout SocketInvocationEncoder,
    throwing: Failure.Type, returning: Success.Type
  ) async throws -> Success where Actor.ID == SocketActorID {
    let bytes = try await call(actor.id, target: target, arguments: invocation.arguments)
    return try BinaryDecoder().decode(Success.self, from: bytes)
  }

  public func remoteCallVoid<Actor: DistributedActor, Failure: Error>(
    on actor: Actor, target: RemoteCallTarget, invocation: inout SocketInvocationEncoder,
    throwing: Failure.Type
  ) async throws where Actor.ID == SocketActorID {
    _ = try await call(actor.id, target: target, arguments: invocation.arguments)
  }

  private func call(
    _ actor: SocketActorID, target: RemoteCallTarget, arguments: [[UInt8]]
  ) async throws -> [UInt8] {
    let id = state.withLock { state -> UInt64 in
      state.nextCall += 1
      return state.nextCall
    }
    let identifier = target.identifier
    let deadline = ContinuousClock.now + callTimeout
    return try await withCheckedThrowingContinuation { continuation in
      let isClosed = state.withLock { state in
        if !state.isClosed {
          state.pending[id] = PendingCall(continuation: continuation, deadline: deadline, target: identifier)
        }
        return state.isClosed
      }
      guard !isClosed else { return continuation.resume(throwing: RemoteCallError.peerDisconnected) }
      do {
        try send(.call(id: id, actor: actor, target: identifier, arguments: arguments))
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
    try writer.withLock { try $0.connection.send(frame) }
  }

  // MARK: Calls in

  /// Handles one frame from the peer on the reading thread; false ends the connection.
  private func receive(_ frame: Frame) -> Bool {
    guard let envelope = try? Envelope(frame) else { return false }
    switch envelope {
    case let .call(id, actor, target, arguments):
      let call = IncomingCall(id: id, actor: actor, target: target, arguments: arguments)
      let isRefused = state.withLock { state -> Bool in
        guard state.actors[actor] == nil, actor.number < SocketActorID.firstAssigned else {
          start(call)
          return false
        }
        guard state.parked.count < Self.maximumParkedCalls else { return true }
        state.parked.append(call)
        return false
      }
      if isRefused { try? send(.failure(id: id, message: "Too many calls wait for actors not hosted yet.")) }
    case let .reply(id, value):
      state.withLock { $0.pending.removeValue(forKey: id) }?.continuation.resume(returning: value)
    case let .failure(id, message):
      fail(call: id, with: RemoteCallError.remote(message))
    }
    return true
  }

  private func peerDidDisconnect() {
    let pending = state.withLock { state in
      state.isClosed = true
      defer { state.pending = [:] }
      return state.pending.values
    }
    for call in pending { call.continuation.resume(throwing: RemoteCallError.peerDisconnected) }
  }

  /// Runs `call` on the reading thread, after the calls that arrived before it.
  private func start(_ call: IncomingCall) {
    Task(executorPreference: executor) { await self.execute(call) }
  }

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
public struct SocketActorID: Hashable, Codable, Sendable, CustomStringConvertible {
  public let number: UInt64
  public init(number: UInt64) { self.number = number }
  public var description: String { "actor-\(number)" }

  /// The first number `assignID` hands out.
  public static let firstAssigned: UInt64 = 1 << 32
}

/// Why a remote call failed.
public enum RemoteCallError: Error, Equatable, CustomStringConvertible {
  /// The remote actor threw; its error's description.
  case remote(String)
  /// No reply came in time.
  case deadlineExceeded(String, Duration)
  /// The connection to the peer is gone.
  case peerDisconnected

  public var description: String {
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

/// Records the arguments of a call as encoded bytes.
public struct SocketInvocationEncoder: DistributedTargetInvocationEncoder {
  public typealias SerializationRequirement = Codable
  var arguments: [[UInt8]] = []

  public mutating func recordGenericSubstitution<T>(_ type: T.Type) throws {
    throw RemoteCallError.remote("Generic distributed methods are not supported.")
  }

  public mutating func recordArgument<Value: Codable>(_ argument: RemoteCallArgument<Value>) throws {
    arguments.append(try BinaryEncoder().encode(argument.value))
  }

  public mutating func recordErrorType<E: Error>(_ type: E.Type) throws {}
  public mutating func recordReturnType<R: Codable>(_ type: R.Type) throws {}
  public mutating func doneRecording() throws {}
}

/// Hands a call's encoded arguments to the target, one at a time.
public struct SocketInvocationDecoder: DistributedTargetInvocationDecoder {
  public typealias SerializationRequirement = Codable
  let arguments: [[UInt8]]
  var next = 0

  init(arguments: [[UInt8]]) { self.arguments = arguments }

  public mutating func decodeGenericSubstitutions() throws -> [any Any.Type] { [] }

  public mutating func decodeNextArgument<Argument: Codable>() throws -> Argument {
    guard next < arguments.count else {
      throw RemoteCallError.remote("The call has fewer arguments than its target takes.")
    }
    defer { next += 1 }
    return try BinaryDecoder().decode(Argument.self, from: arguments[next])
  }

  public mutating func decodeErrorType() throws -> (any Any.Type)? { nil }
  public mutating func decodeReturnType() throws -> (any Any.Type)? { nil }
}

/// Sends the outcome of a call back to the caller.
public struct SocketResultHandler: DistributedTargetInvocationResultHandler {
  public typealias SerializationRequirement = Codable
  let system: SocketActorSystem
  let call: UInt64

  public func onReturn<Success: Codable>(value: Success) async throws {
    try system.send(.reply(id: call, value: try BinaryEncoder().encode(value)))
  }

  public func onReturnVoid() async throws {
    try system.send(.reply(id: call, value: []))
  }

  public func onThrow<Err: Error>(error: Err) async throws {
    try system.send(.failure(id: call, message: "\(error)"))
  }
}
