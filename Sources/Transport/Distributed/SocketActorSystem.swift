import Distributed
import Foundation
import Synchronization

/// A `DistributedActorSystem` over one authenticated Unix-socket connection between two
/// processes (a host and a worker). Each side hosts its own actors and calls the other's.
///
/// Calls are matched to replies by call id; a thrown error comes back as itself when it is a
/// `CodableError`, and as a `RemoteCallError` otherwise. Every call has a deadline, and when
/// the peer goes away every call in flight fails at once with `RemoteCallError.peerDisconnected`.
/// The actors a system hosts hold it, and it holds them, until the connection ends. Calls
/// arriving from the peer start in the order they were sent, on the thread that reads the
/// connection (`executor`); a caller that prefers that executor resumes there too, so a call
/// costs no thread hop on either side. A caller on any other thread reads its own reply when
/// the reading thread is waiting (`ReadSide`): it spins briefly for it (`BriefSpin`) on its own
/// thread, so that the reply wakes no thread at all, and leaves the reply to the reading thread
/// when it does not come soon.
///
/// A distributed method that returns nothing and cannot throw is a *message*: the call
/// returns once it is written, and the peer sends nothing back. Messages and calls from one
/// side start on the other in the order they were sent.
///
/// A system whose connection is `.byCaller` has no reading thread: a call writes its request
/// and reads the reply on the calling thread, so a synchronous caller (`call(_:_:arguments:)`)
/// pays no thread hop and no wake-up. Such a system only calls; it hosts no actors the peer
/// could reach.
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

  /// Who reads the connection.
  package enum Reading: Sendable {
    /// A thread of the system's own, which also runs the calls the peer makes.
    case byThread
    /// Each caller, for its own reply, one call at a time.
    case byCaller
    /// The thread that calls `serve()`, as `byThread` but on a thread the owner chooses: a
    /// worker's main thread, which a SIGSTOP sent to the process stops first.
    case byServingThread
    /// A thread that reads many connections as frames arrive (an `ActorListener`'s, a
    /// `ConnectionWatch`'s), which takes the reading half with `takeServing()`. The system has no thread of its own: the
    /// peer's calls run on the poller's thread when it shares its executor, else on the
    /// global executor.
    case byPoller
  }

  /// How long a call may take before it fails with `RemoteCallError.deadlineExceeded`.
  package let callTimeout: Duration
  package let reading: Reading

  private let writer: Mutex<Writer>
  /// Shuts the connection down without the writer's lock, which a blocked write may hold.
  private let shutdown: SocketShutdown
  /// The socket's, open as long as the writer holds it: for asking without its lock whether
  /// a write would wait.
  private let socketDescriptor: Int32
  private let state: Mutex<State>
  /// The reading half, for a system read by its callers; nil for one read by its thread.
  private let callerReading: Mutex<ConnectionHalf?>
  /// The reading half, for a system read by a thread of its own, which a caller takes for a
  /// moment to read its own reply; nil for any other system.
  private let readSide: ReadSide?
  /// Payload bytes written and read so far, for statistics.
  private let traffic = Traffic()
  /// The thread that reads the connection, as an executor: calls from the peer run on it, and
  /// callers that prefer it (`withTaskExecutorPreference`) resume on it without a thread hop.
  /// A system read by its callers has no such thread: its jobs run on the global executor.
  package let executor: ConnectionThread

  /// The writing half of the connection, and the numbers this side gave the targets it
  /// called, which the peer learns from the first call to each.
  private struct Writer {
    let half: ConnectionHalf
    var targets: [String: UInt64] = [:]
  }

  private typealias Waiter = UnsafeContinuation<Result<[UInt8], any Error>, Never>

  /// A call written, or about to be, whose outcome has not reached its caller.
  private struct PendingCall {
    /// Nil until the caller waits: an outcome that comes sooner (to a caller that reads its
    /// own reply, or that the thread beat to it) is kept in `outcome` for it.
    var continuation: Waiter?
    var outcome: Result<[UInt8], any Error>?
    let deadline: ContinuousClock.Instant
    let target: String
  }

  /// A call from the peer, as it arrived.
  private struct IncomingCall: Sendable {
    let id: UInt64
    let actor: SocketActorID
    let target: UInt64
    let arguments: [UInt8]
  }

  /// A target the peer named, and how calls to it are made once the first one has run.
  private struct KnownTarget {
    let name: String
    var resolution: TargetResolution?
  }

  /// An actor of this process after the connection ended, kept only by its other owners.
  private struct Departed {
    weak var actor: (any DistributedActor)?
  }

  /// How many calls to well-known actors that are not hosted yet may wait for them.
  private static let maximumParkedCalls = 256
  /// How many targets the peer may name; its actors have far fewer distributed methods.
  private static let maximumTargets = 4_096

  private struct State {
    var nextActor = SocketActorID.firstAssigned
    var nextCall: UInt64 = 0
    var actors: [SocketActorID: any DistributedActor] = [:]
    /// The actors of this process once the connection has ended, held weakly: no peer can
    /// call them any more, yet each still resolves to itself for as long as it lives.
    var departed: [SocketActorID: Departed] = [:]
    /// Calls that arrived for a well-known actor before this process hosted it.
    var parked: [IncomingCall] = []
    /// Parked calls released to run but not started yet: calls arriving meanwhile queue
    /// behind them instead of starting at once, so that calls to one actor keep their order.
    var releasing = 0
    /// The targets the peer named, by the number it gave each.
    var targets: [UInt64: KnownTarget] = [:]
    /// Targets resolved for `invokeLocally`, by name.
    var local: [String: TargetResolution] = [:]
    var pending: [UInt64: PendingCall] = [:]
    var isClosed = false
  }

  /// A system talking over `connection`, which must already be authenticated. Read by a
  /// thread of its own (`.byThread`) until the peer closes it, or by its callers.
  /// `onClose` runs once when the connection ends, with the error that ended it, if any.
  package convenience init(
    connection: FramedConnection, callTimeout: Duration = .seconds(10), reading: Reading = .byThread,
    onClose: @escaping @Sendable (TransportError?) -> Void = { _ in }
  ) {
    self.init(connection: connection, callTimeout: callTimeout, reading: reading, sharing: nil, onClose: onClose)
  }

  /// A system whose connection `watch` reads, with those of many other systems, on its one
  /// thread (`ConnectionWatch`): the peer's calls run there, as do the jobs of the actors
  /// bound to the connection. Where the watch reads none, a thread of its own reads it.
  package convenience init(
    connection: FramedConnection, callTimeout: Duration = .seconds(10), watchedBy watch: ConnectionWatch,
    onClose: @escaping @Sendable (TransportError?) -> Void = { _ in }
  ) {
    guard watch.isAvailable else {
      self.init(connection: connection, callTimeout: callTimeout, reading: .byThread, sharing: nil, onClose: onClose)
      return
    }
    self.init(connection: connection, callTimeout: callTimeout, reading: .byPoller, sharing: watch.executor, onClose: onClose)
    if let serving = takeServing() { watch.read(self, serving) }
  }

  /// As `init(connection:callTimeout:reading:onClose:)`; a system read by a poller whose
  /// thread runs the jobs of every system it reads shares that thread's executor, `shared`.
  /// Without one, a poller's system hands its jobs to the global executor.
  init(
    connection: FramedConnection, callTimeout: Duration = .seconds(10), reading: Reading, sharing shared: ConnectionThread?,
    onClose: @escaping @Sendable (TransportError?) -> Void = { _ in }
  ) {
    self.callTimeout = callTimeout
    self.reading = reading
    writer = Mutex(Writer(half: ConnectionHalf(connection: FramedConnection(connection.socket))))
    shutdown = connection.socket.shutdownHandle
    socketDescriptor = connection.socket.descriptor
    state = Mutex(State())
    executor = shared ?? ConnectionThread()
    switch reading {
    case .byCaller:
      // The kernel bounds each read of a reply; a connection given a timeout already keeps it.
      if connection.receiveTimeout == nil {
        let (seconds, attoseconds) = callTimeout.components
        try? connection.setReceiveTimeout(
          milliseconds: Int32(clamping: max(1, seconds * 1_000 + attoseconds / 1_000_000_000_000_000)))
      }
      callerReading = Mutex(ConnectionHalf(connection: connection))
      readSide = nil
      closeHandler = onClose
      executor.stop()
    case .byThread, .byServingThread, .byPoller:
      let reader = ConnectionHalf(connection: connection)
      callerReading = Mutex(nil)
      readSide = reading == .byPoller ? nil : ReadSide(reader, wakeup: executor.wakeup)
      closeHandler = nil
      // Weak: the reading thread must not keep alive a system that nobody uses.
      let handlers = ConnectionThread.Handlers(
        frame: { [weak self] in self?.receive($0) ?? false },
        nextDeadline: { [weak self] in self?.nextDeadline },
        expire: { [weak self] in self?.expireCalls(at: $0) },
        end: { [weak self] error in
          self?.peerDidDisconnect()
          onClose(error)
        })
      if reading == .byThread, let readSide {
        executor.start(reading: readSide, idleWait: callTimeout, handlers: handlers)
      } else {
        if reading == .byPoller && shared == nil { executor.stop() }
        serving.withLock { $0 = Serving(reader: reader, handlers: handlers) }
      }
    }
  }

  /// The reading half of a system that no thread of its own reads, and what to do with what
  /// it reads, for whoever reads it.
  struct Serving: Sendable {
    let reader: ConnectionHalf
    let handlers: ConnectionThread.Handlers
  }

  private let serving = Mutex<Serving?>(nil)

  /// For a system read by its serving thread: reads the connection on the calling thread,
  /// running the peer's calls, until the connection ends. Returns at once on any other system
  /// or the second time.
  package func serve() {
    guard reading == .byServingThread, let readSide, let serving = takeServing() else { return }
    executor.read(readSide, idleWait: callTimeout, handlers: serving.handlers)
  }

  /// The reading half, handed out once, for a system read by its serving thread or a poller.
  func takeServing() -> Serving? {
    serving.withLock { serving in
      defer { serving = nil }
      return serving
    }
  }

  /// For a system read by its callers: runs once, when a caller finds the connection ended.
  private let closeHandler: (@Sendable (TransportError?) -> Void)?

  /// Stops talking to the peer: in-flight calls fail and the reader thread ends.
  package func close() {
    shutdown.shutdown()
  }

  /// Whether a write of a small message would not wait now: the socket's send buffer is at
  /// most a quarter full (the kernel's `POLLOUT` on a Unix socket), so a message of up to
  /// three quarters of it fits. False while another writer waits on a full buffer.
  package var canWriteWithoutWaiting: Bool {
    var descriptor = pollfd(fd: socketDescriptor, events: Int16(POLLOUT), revents: 0)
    return poll(&descriptor, 1, 0) == 1 && descriptor.revents & Int16(POLLOUT) != 0
  }

  /// Payload bytes written to the peer and read from it so far.
  package var bytesSent: Int { traffic.sent.load(ordering: .relaxed) }
  package var bytesReceived: Int { traffic.received.load(ordering: .relaxed) }
  /// How many calls read their own reply on the calling thread, on a system read by its thread.
  package var repliesReadByCallers: Int { traffic.repliesReadByCallers.load(ordering: .relaxed) }

  /// Does what this system does the first time its peer calls `actor`, short of the call:
  /// gives the table of the targets the peer names its first entry, and finds out how calls
  /// reach the actor. The first time a process does either, the runtime scans every loaded
  /// library's conformances (for the table, to check the key of its storage type, found by its
  /// mangled name). A worker template does it before it forks (`EndpointRehearsal`), so that no
  /// fork does it again.
  package func rehearseIncomingCall(to actor: any DistributedActor) {
    state.withLock { $0.targets[0] = KnownTarget(name: "", resolution: nil) }
    _ = TargetResolution.resolve(RemoteCallTarget(""), on: actor, using: self)
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
    state.withLock { state in
      // Held strongly only while a peer may call it: the table is what keeps a hosted actor.
      if state.isClosed {
        state.departed[actor.id] = Departed(actor: actor)
      } else {
        state.actors[actor.id] = actor
      }
    }
  }

  package func resignID(_ id: SocketActorID) {
    state.withLock { state in
      state.actors.removeValue(forKey: id)
      state.departed.removeValue(forKey: id)
    }
  }

  /// The actor `id` of this process, whether or not the connection has ended: an actor's
  /// identity does not depend on when the peer went away.
  package func resolve<Actor: DistributedActor>(
    id: SocketActorID, as actorType: Actor.Type
  ) throws -> Actor? where Actor.ID == SocketActorID {
    state.withLock { $0.actors[id] ?? $0.departed[id]?.actor } as? Actor
  }

  /// Makes `id` the name of the next actor of this system, so that the peer can address it by
  /// a name both sides know. Calls the peer made to `id` before it was hosted run now, in order.
  package func hosting<Actor: DistributedActor>(
    _ id: SocketActorID, _ make: (SocketActorSystem) -> Actor
  ) -> Actor where Actor.ID == SocketActorID {
    precondition(id != .standIn, "the stand-in of method targets is never hosted")
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
    guard actor.id != .standIn else { throw ReachedTarget(identifier: target.identifier) }
    var reader = ByteReader(try await call(actor.id, target: target, arguments: invocation.arguments.bytes))
    let value = try Success(from: &reader)
    guard reader.isAtEnd else { throw TransportError.malformed("bytes left over after the result of \(target)") }
    return value
  }

  package func remoteCallVoid<Actor: DistributedActor, Failure: Error>(
    on actor: Actor, target: RemoteCallTarget, invocation: inout SocketInvocationEncoder,
    throwing: Failure.Type
  ) async throws where Actor.ID == SocketActorID {
    guard actor.id != .standIn else { throw ReachedTarget(identifier: target.identifier) }
    // Nothing can come back from a method that returns nothing and cannot throw: a message.
    guard Failure.self != Never.self else {
      return try post(actor.id, target: target, arguments: invocation.arguments.bytes)
    }
    _ = try await call(actor.id, target: target, arguments: invocation.arguments.bytes)
  }

  private func call(
    _ actor: SocketActorID, target: RemoteCallTarget, arguments: [UInt8]
  ) async throws -> [UInt8] {
    let id = state.withLock { state -> UInt64 in
      state.nextCall += 1
      return state.nextCall
    }
    if reading == .byCaller {
      return try callReadingReply(id, actor, target: target.identifier, named: target.description, arguments: arguments)
    }
    let identifier = target.identifier
    let isOpen = state.withLock { state in
      if !state.isClosed {
        state.pending[id] = PendingCall(deadline: ContinuousClock.now + callTimeout, target: identifier)
      }
      return !state.isClosed
    }
    guard isOpen else { throw RemoteCallError.peerDisconnected }
    do {
      try write(call: id, actor, target: identifier, arguments: arguments)
    } catch {
      state.withLock { $0.pending[id] = nil }
      throw RemoteCallError.peerDisconnected
    }
    // The connection's own thread resumes a call it reads at once; any other caller reads its
    // reply itself if nobody else reads, so that the reply wakes no thread but its own.
    let spin = executor.isCurrent ? nil : readSide.flatMap { readOwnReply(id, from: $0) }
    if let outcome = takeOutcome(of: id) {
      if let spin, let readSide {
        if spin.isReady { traffic.repliesReadByCallers.add(1, ordering: .relaxed) } else { readSide.callerWaited(spin) }
      }
      return try outcome.get()
    }
    // Unsafe rather than checked: `pending` hands each continuation out exactly once (to the
    // reply, the deadline, or the peer's end), and the check costs every call.
    let outcome = await withUnsafeContinuation { wait(for: id, $0) }
    if let spin, let readSide { readSide.callerWaited(spin) }
    return try outcome.get()
  }

  /// The outcome of call `id` if it has come, which ends the call.
  private func takeOutcome(of id: UInt64) -> Result<[UInt8], any Error>? {
    state.withLock { state in
      guard let outcome = state.pending[id]?.outcome else { return nil }
      state.pending[id] = nil
      return outcome
    }
  }

  /// Reads replies on the calling thread, holding `readSide`, until the reply to call `id`
  /// has come or the spin (`BriefSpin`) runs out; stops early at a call from the peer or the
  /// connection's end, which it hands to the reading thread. Nil when the thread or another
  /// caller reads, or the reply has come already.
  private func readOwnReply(_ id: UInt64, from readSide: ReadSide) -> BriefSpin.Begun? {
    guard var spin = readSide.callerTakes() else { return nil }
    let connection = readSide.half.connection
    var handing: ReadSideMachine.Handed?
    // The thread may have read the reply before this caller took over.
    guard state.withLock({ $0.pending[id]?.outcome == nil }) else {
      readSide.callerGivesBack(handing: nil, spin: spin)
      return nil
    }
    var replied = false
    let begun = spin.spin {
      if !connection.isReadyToReceive { _ = connection.readAvailable() }
      while handing == nil, connection.isReadyToReceive {
        do throws(TransportError) {
          guard let frame = try connection.receive() else {
            handing = .end(nil)
            break
          }
          let answer: (call: UInt64, outcome: Result<[UInt8], any Error>)? =
            switch try? Envelope(frame) {
            case let .reply(replyID, value)?: (replyID, .success(value))
            case let .failure(replyID, error)?: (replyID, .failure(error.error))
            case .call?, nil: nil
            }
          guard let answer else {
            // The thread starts the peer's calls, in order, and ends a connection that breaks
            // the protocol.
            handing = .frame(frame)
            break
          }
          traffic.received.add(frame.payload.count, ordering: .relaxed)
          settle(call: answer.call, with: answer.outcome)
          replied = replied || answer.call == id
        } catch {
          handing = .end(error)
        }
      }
      return replied || handing != nil
    }
    readSide.callerGivesBack(handing: handing, spin: spin)
    return begun
  }

  /// Hands call `id` its outcome when the outcome has come, or else keeps `continuation` for it.
  private func wait(for id: UInt64, _ continuation: Waiter) {
    let outcome = state.withLock { state -> Result<[UInt8], any Error>? in
      guard var call = state.pending.removeValue(forKey: id) else { return .failure(RemoteCallError.peerDisconnected) }
      if let outcome = call.outcome { return outcome }
      call.continuation = continuation
      state.pending[id] = call
      return nil
    }
    if let outcome { continuation.resume(returning: outcome) }
  }

  // MARK: Calls from synchronous code

  /// Calls the method `target` of the `DirectlyCallable` actor `actor` on the peer and returns
  /// the result's bytes, from synchronous code and without a task: the call is written and its
  /// reply read on this thread. For a system read by its callers.
  ///
  /// The peer's actor runs the method just as for a call through the distributed method, by
  /// the same target; this side skips the distributed thunk, which needs a task, and a task
  /// started from synchronous code either waits for another thread or runs nested in the
  /// caller's job.
  package func call<Actor>(_ actor: SocketActorID, _ target: DirectTarget<Actor>, arguments: [UInt8]) throws -> [UInt8] {
    precondition(reading == .byCaller, "a synchronous call needs a system read by its callers")
    let method = try target.method.target(using: self)
    let id = state.withLock { state -> UInt64 in
      state.nextCall += 1
      return state.nextCall
    }
    return try callReadingReply(id, actor, target: method.identifier, named: method.description, arguments: arguments)
  }

  /// Sends the message `target` (a method that returns nothing and cannot throw) to the
  /// `DirectlyCallable` actor `actor` on the peer, once for each arguments in `each`, in order,
  /// in one write: from any thread and without a task, and not answered.
  package func post<Actor>(_ actor: SocketActorID, _ target: DirectTarget<Actor>, each: some Collection<[UInt8]>) throws {
    let method = try target.method.target(using: self)
    do {
      try write(calls: 0, actor, target: method.identifier, each: each)
    } catch {
      throw RemoteCallError.peerDisconnected
    }
  }

  /// Sends a message: a call whose id is 0, to which the peer sends no reply.
  private func post(_ actor: SocketActorID, target: RemoteCallTarget, arguments: [UInt8]) throws {
    do {
      try write(call: 0, actor, target: target.identifier, arguments: arguments)
    } catch {
      throw RemoteCallError.peerDisconnected
    }
  }

  /// Writes a call, naming its target by number, and by name too the first time.
  private func write(call id: UInt64, _ actor: SocketActorID, target identifier: String, arguments: [UInt8]) throws {
    try write(calls: id, actor, target: identifier, each: CollectionOfOne(arguments))
  }

  /// Writes a call with id `id` for each arguments in `each`, in one write.
  private func write(
    calls id: UInt64, _ actor: SocketActorID, target identifier: String, each: some Collection<[UInt8]>
  ) throws {
    try writer.withLock { writer in
      let number = writer.targets[identifier]
      let assigned = number ?? UInt64(writer.targets.count)
      if number == nil { writer.targets[identifier] = assigned }
      var definition = number == nil ? identifier : nil
      let frames = each.map { arguments in
        defer { definition = nil }
        return Envelope.call(id: id, actor: actor, target: assigned, definition: definition, arguments: arguments).frame
      }
      try writer.half.connection.send(frames)
      traffic.sent.add(frames.reduce(0) { $0 + $1.payload.count }, ordering: .relaxed)
    }
  }

  /// A call on a system read by its callers: writes it and reads its reply on this thread,
  /// holding the reading half, so that calls go one at a time. The socket's receive timeout
  /// (`callTimeout`) bounds each read.
  private func callReadingReply(
    _ id: UInt64, _ actor: SocketActorID, target: String, named name: @autoclosure () -> String, arguments: [UInt8]
  ) throws -> [UInt8] {
    // The peer's failure is thrown outside: the connection still serves the next call.
    let reply = try callerReading.withLock { half -> Result<[UInt8], any Error> in
      guard let half, !state.withLock({ $0.isClosed }) else { throw RemoteCallError.peerDisconnected }
      do {
        try write(call: id, actor, target: target, arguments: arguments)
        guard let frame = try half.connection.receiveSoon() else { throw RemoteCallError.peerDisconnected }
        traffic.received.add(frame.payload.count, ordering: .relaxed)
        switch try Envelope(frame) {
        case let .reply(replyID, value) where replyID == id:
          return .success(value)
        case let .failure(replyID, error) where replyID == id:
          return .failure(error.error)
        case .reply, .failure, .call:
          throw TransportError.malformed("a reply to another call, or a call, where the reply to \(name()) was due")
        }
      } catch {
        // The connection cannot be trusted any more: a late reply could be taken for the
        // answer to the next call.
        endReadingByCaller(error as? TransportError)
        if case .timedOut? = error as? TransportError {
          throw RemoteCallError.deadlineExceeded(name(), callTimeout)
        }
        throw RemoteCallError.peerDisconnected
      }
    }
    return try reply.get()
  }

  /// For a system read by its callers: how long each read of a reply may wait from now on
  /// (the kernel's `SO_RCVTIMEO`, so a read that finds its reply costs no extra system call).
  package func setReplyTimeout(milliseconds: Int32) throws(TransportError) {
    try callerReading.withLock { half throws(TransportError) in try half?.connection.setReceiveTimeout(milliseconds: milliseconds) }
  }

  private func endReadingByCaller(_ error: TransportError?) {
    shutdown.shutdown()
    let wasOpen = state.withLock { state in
      defer { state.isClosed = true }
      return !state.isClosed
    }
    if wasOpen { closeHandler?(error) }
  }

  /// Hands call `id` its outcome: resumes its caller if it waits, or else keeps the outcome
  /// for it. The first outcome counts; a call that has ended ignores more.
  private func settle(call id: UInt64, with outcome: Result<[UInt8], any Error>) {
    let waiter = state.withLock { state -> Waiter? in
      guard var call = state.pending[id], call.outcome == nil else { return nil }
      guard let waiter = call.continuation else {
        call.outcome = outcome
        state.pending[id] = call
        return nil
      }
      state.pending[id] = nil
      return waiter
    }
    waiter?.resume(returning: outcome)
  }

  /// When the oldest call in flight runs out of time.
  private var nextDeadline: ContinuousClock.Instant? {
    state.withLock { $0.pending.values.lazy.filter { $0.outcome == nil }.map(\.deadline).min() }
  }

  private func expireCalls(at now: ContinuousClock.Instant) {
    let expired = state.withLock { state -> [(UInt64, String)] in
      // Most wake-ups find nothing due: check before building anything.
      guard state.pending.values.contains(where: { $0.deadline <= now && $0.outcome == nil }) else { return [] }
      return state.pending.filter { $0.value.deadline <= now && $0.value.outcome == nil }.map { ($0.key, $0.value.target) }
    }
    for (id, target) in expired {
      settle(call: id, with: .failure(RemoteCallError.deadlineExceeded(target, callTimeout)))
    }
  }

  /// Sends a reply or a failure.
  func send(_ envelope: Envelope) throws {
    let frame = envelope.frame
    try writer.withLock { try $0.half.connection.send(frame) }
    traffic.sent.add(frame.payload.count, ordering: .relaxed)
  }

  // MARK: Calls in

  /// Handles one frame from the peer on the reading thread; false ends the connection.
  private func receive(_ frame: Frame) -> Bool {
    traffic.received.add(frame.payload.count, ordering: .relaxed)
    guard let envelope = try? Envelope(frame) else { return false }
    switch envelope {
    case let .call(id, actor, number, definition, arguments):
      enum Decision { case start(IncomingCall), queue(IncomingCall), parked, refused, violation }
      let decision = state.withLock { state -> Decision in
        if let definition {
          guard state.targets[number] == nil, state.targets.count < Self.maximumTargets else { return .violation }
          state.targets[number] = KnownTarget(name: definition)
        }
        guard state.targets[number] != nil else { return .violation }
        let call = IncomingCall(id: id, actor: actor, target: number, arguments: arguments)
        guard state.actors[actor] == nil, actor.number < SocketActorID.firstAssigned else {
          return state.releasing == 0 ? .start(call) : .queue(call)
        }
        guard state.parked.count < Self.maximumParkedCalls else { return id == 0 ? .violation : .refused }
        state.parked.append(call)
        return .parked
      }
      switch decision {
      case let .start(call):
        // Runs here, on the reading thread, until the call first waits: no task is queued
        // for it, and calls start in the order they arrived. A method of an actor bound to
        // the connection runs to its end with no task at all.
        guard !executeInline(call) else { break }
        Task.immediate(executorPreference: executor) { await self.execute(call) }
      case let .queue(call):
        Task(executorPreference: executor) { await self.execute(call) }
      case .parked:
        break
      case .refused:
        try? send(.failure(id: id, error: ThrownError(refusing: .tooManyWaitingCalls(limit: Self.maximumParkedCalls))))
      case .violation:
        // A target number never named or named twice, or a message for an actor that is
        // not here: the peer is not speaking this protocol.
        return false
      }
    case let .reply(id, value):
      settle(call: id, with: .success(value))
    case let .failure(id, error):
      settle(call: id, with: .failure(error.error))
    }
    return true
  }

  /// The connection ended, or the peer broke the protocol: fail every call in flight, and
  /// shut the socket down so that the peer sees the end too.
  private func peerDidDisconnect() {
    shutdown.shutdown()
    let (pending, actors) = state.withLock { state in
      state.isClosed = true
      state.departed.merge(state.actors.mapValues { Departed(actor: $0) }) { _, new in new }
      defer {
        state.actors = [:]
        state.parked = []
      }
      return (state.pending.keys, state.actors.values)
    }
    for id in pending { settle(call: id, with: .failure(RemoteCallError.peerDisconnected)) }
    // Each hosted actor holds this system: let them go here, or neither is ever freed. Released
    // outside the lock, as an actor's deinit resigns its id.
    withExtendedLifetime(actors) {}
  }

  /// Runs `target` on the actor `id` of this process as a call from the peer would run, with
  /// `arguments` laid out as a caller's encoder lays them out, and drops the result: what
  /// finding and invoking a distributed target costs, for the benchmark. `direct` resolves
  /// the target as an incoming call does; otherwise it is found by name every time.
  package func invokeLocally(_ id: SocketActorID, target: String, arguments: [UInt8], direct: Bool = false) async throws {
    guard let actor = state.withLock({ $0.actors[id] }) else { throw RemoteCallError.noSuchActor(id) }
    var decoder = SocketInvocationDecoder(arguments: arguments)
    let target = RemoteCallTarget(target)
    let resolution =
      state.withLock { $0.local[target.identifier] } ?? TargetResolution.resolve(target, on: actor, using: self)
    state.withLock { $0.local[target.identifier] = resolution }
    if direct, case let .direct(target) = resolution {
      _ = try await target.invoke(actor, &decoder)
      return
    }
    try await executeDistributedTarget(
      on: actor, target: target, invocationDecoder: &decoder, handler: SocketResultHandler(system: nil, call: 0))
  }

  /// How many of the targets the peer named are called directly (`DirectlyCallable`).
  package var directTargetCount: Int {
    state.withLock { state in
      state.targets.values.count { if case .direct? = $0.resolution { true } else { false } }
    }
  }

  /// The names of the targets this side has called, for `invokeLocally`.
  package var calledTargets: [String] { writer.withLock { Array($0.targets.keys) } }

  private func execute(_ call: IncomingCall) async {
    let handler = SocketResultHandler(system: call.id == 0 ? nil : self, call: call.id)
    let (actor, known) = state.withLock { ($0.actors[call.actor], $0.targets[call.target]) }
    guard let actor, let known else {
      try? send(.failure(id: call.id, error: ThrownError(refusing: .noSuchActor(call.actor))))
      return
    }
    var decoder = SocketInvocationDecoder(arguments: call.arguments)
    do {
      let resolution = known.resolution ?? resolve(call.target, known.name, on: actor)
      switch resolution {
      case let .refused(reason):
        throw Refusal(reason: reason)
      case let .direct(target):
        answer(call, with: try await target.invoke(actor, &decoder))
      case .byName:
        try await executeDistributedTarget(
          on: actor, target: RemoteCallTarget(known.name), invocationDecoder: &decoder, handler: handler)
      }
    } catch {
      fail(call, with: error)
    }
  }

  /// Runs `call` to its end here, on the reading thread, when its target is a method of an
  /// actor bound to the connection (`DirectTarget(onReadingThread:)`); false when it needs a
  /// task, or when jobs wait for the thread (an earlier call, released from waiting for its
  /// actor, hopping onto the lane): behind them it keeps its place.
  private func executeInline(_ call: IncomingCall) -> Bool {
    guard executor.isCurrent, !executor.hasQueuedJobs else { return false }
    let (actor, known) = state.withLock { ($0.actors[call.actor], $0.targets[call.target]) }
    guard let actor, let known,
      case let .direct(target) = known.resolution ?? resolve(call.target, known.name, on: actor),
      let inline = target.inline
    else { return false }
    var decoder = SocketInvocationDecoder(arguments: call.arguments)
    do {
      answer(call, with: try inline(actor, &decoder))
    } catch {
      fail(call, with: error)
    }
    return true
  }

  /// Sends the result of a call the peer waits for.
  private func answer(_ call: IncomingCall, with result: ByteWriter?) {
    guard call.id != 0 else { return }
    do {
      try send(.reply(id: call.id, value: result?.bytes ?? []))
    } catch {
      fail(call, with: error)
    }
  }

  private func fail(_ call: IncomingCall, with error: any Error) {
    guard call.id != 0 else {
      // A message that does not decode cannot be answered: the peer is not speaking this
      // protocol, and the connection ends.
      return close()
    }
    try? send(.failure(id: call.id, error: ThrownError(thrownBy: error)))
  }

  /// Decides once how calls to target `number` are made, and remembers it.
  private func resolve(_ number: UInt64, _ name: String, on actor: any DistributedActor) -> TargetResolution {
    let resolution = TargetResolution.resolve(RemoteCallTarget(name), on: actor, using: self)
    state.withLock { $0.targets[number]?.resolution = resolution }
    return resolution
  }
}

/// Payload bytes written and read by a system.
private final class Traffic: Sendable {
  let sent = Atomic<Int>(0)
  let received = Atomic<Int>(0)
  let repliesReadByCallers = Atomic<Int>(0)
}
