import Distributed

/// A distributed actor whose hot methods a `SocketActorSystem` calls directly.
///
/// Swift's `executeDistributedTarget` finds a target by its mangled name and demangles its
/// parameter types on every call, a few microseconds each time. The system instead resolves
/// a target once per connection, when the peer first names it: if the actor's type lists the
/// method here, later calls go straight to it.
///
/// Each method is named by a call through it (`DirectTarget(of:…)`), never by a string: a
/// renamed or changed method no longer compiles here.
///
/// ```swift
/// extension Counter: DirectlyCallable {
///   static let addTarget = DirectTarget(of: { try await $0.add(0) }) { counter, arguments in
///     try await counter.add(arguments.next())
///   }
///   static let directTargets = [addTarget]
/// }
/// ```
package protocol DirectlyCallable: DistributedActor where ActorSystem == SocketActorSystem {
  /// The methods called directly.
  static var directTargets: [DirectTarget<Self>] { get }
}

/// One method of a `DirectlyCallable` actor: the method, named by a call through it, and how
/// a call to it is run: read its arguments in order, call it, lay out its result.
package struct DirectTarget<Actor: DistributedActor>: Sendable where Actor.ActorSystem == SocketActorSystem {
  /// The method, for a caller's synchronous calls and for matching the targets the peer names.
  package let method: MethodTarget<Actor>
  let invoke: @Sendable (Actor, inout SocketInvocationDecoder) async throws -> ByteWriter?
  /// Runs the method at once on the thread that read the call; nil for a method that may wait.
  let inline: (@Sendable (Actor, inout SocketInvocationDecoder) throws -> ByteWriter?)?

  /// A method that returns a value; `call` calls it with any arguments (`{ try await $0.add(0) }`).
  package init<Result: WireCodable>(
    of call: @escaping @Sendable (Actor) async throws -> Result,
    _ method: @escaping @Sendable (Actor, inout SocketInvocationDecoder) async throws -> Result
  ) {
    self.method = MethodTarget(call)
    invoke = { actor, arguments in try await method(actor, &arguments).written }
    inline = nil
  }

  /// A method that returns nothing.
  package init(
    of call: @escaping @Sendable (Actor) async throws -> Void,
    _ method: @escaping @Sendable (Actor, inout SocketInvocationDecoder) async throws -> Void
  ) {
    self.method = MethodTarget(call)
    invoke = { actor, arguments in
      try await method(actor, &arguments)
      return nil
    }
    inline = nil
  }

  /// A synchronous method of an actor bound to its connection (`ConnectionBound`): the system
  /// runs it on the thread that reads the call, isolated to the actor, as soon as the call is
  /// read — no task, no hop — and sends the result from there.
  ///
  /// ```swift
  /// DirectTarget(of: { try await $0.handle(.ping) }, onReadingThread: { endpoint, arguments in
  ///   endpoint.handle(try arguments.next())
  /// })
  /// ```
  package init<Result: WireCodable>(
    of call: @escaping @Sendable (Actor) async throws -> Result,
    onReadingThread method: @escaping @Sendable (isolated Actor, inout SocketInvocationDecoder) throws -> Result
  ) {
    self.method = MethodTarget(call)
    invoke = { actor, arguments in
      let call = arguments
      return try await actor.whenLocal { actor in
        var arguments = call
        return try method(actor, &arguments).written
      }
    }
    inline = { actor, arguments in try actor.assumeIsolated { actor in try method(actor, &arguments).written } }
  }

  /// A synchronous method that returns nothing, of an actor bound to its connection: a
  /// message, run on the thread that reads it.
  package init(
    of call: @escaping @Sendable (Actor) async throws -> Void,
    onReadingThread method: @escaping @Sendable (isolated Actor, inout SocketInvocationDecoder) throws -> Void
  ) {
    self.method = MethodTarget(call)
    invoke = { actor, arguments in
      let call = arguments
      try await actor.whenLocal { actor in
        var arguments = call
        try method(actor, &arguments)
      }
      return nil
    }
    inline = { actor, arguments in
      try actor.assumeIsolated { actor in try method(actor, &arguments) }
      return nil
    }
  }
}

/// A distributed actor whose executor is the thread that reads its system's connection, so
/// that its `DirectTarget(onReadingThread:)` methods run as each call is read. Such an actor
/// declares
///
/// ```swift
/// nonisolated var unownedExecutor: UnownedSerialExecutor { actorSystem.executor.lane.asUnownedSerialExecutor() }
/// ```
///
/// Its jobs then run on the reading thread between frames (`ConnectionThread.lane`); what it
/// does must not wait for the peer, which could be waiting for it.
package protocol ConnectionBound: DirectlyCallable {}

extension WireCodable {
  /// The value laid out, as a call's result.
  fileprivate var written: ByteWriter {
    var writer = ByteWriter()
    write(to: &writer)
    return writer
  }
}

extension SocketInvocationDecoder {
  /// The call's next argument: shorthand for direct targets.
  package mutating func next<Argument: WireCodable>() throws -> Argument {
    try decodeNextArgument()
  }
}

/// How an incoming call reaches its target, decided once per target and connection.
enum TargetResolution: Sendable {
  /// Through `executeDistributedTarget`, by the target's mangled name.
  case byName
  /// Not a method of the actor: why, for the caller.
  case refused(RemoteCallError)
  /// Straight to the method: the closures check the actor's type, so a resolution made for
  /// one actor never runs on another's.
  case direct(DirectInvocation)

  /// How calls to `target` on actors of `actor`'s type are made; `system` reads the targets
  /// of the methods the type lists.
  static func resolve(_ target: RemoteCallTarget, on actor: any DistributedActor, using system: SocketActorSystem)
    -> TargetResolution
  {
    if let callable = actor as? any DirectlyCallable, let direct = resolveDirect(target, on: callable, using: system) {
      return direct
    }
    // Swift prints a target as `Module.Type.method(labels:)`. A method of another type, from a
    // peer built from other code, must not run on this actor.
    let type = String(reflecting: Swift.type(of: actor))
    guard target.description.hasPrefix(type + ".") else {
      return .refused(.noSuchMethod(actor: type, target: target.description))
    }
    return .byName
  }

  private static func resolveDirect<Actor: DirectlyCallable>(
    _ target: RemoteCallTarget, on _: Actor, using system: SocketActorSystem
  ) -> TargetResolution? {
    for direct in Actor.directTargets {
      do {
        guard try direct.method.target(using: system).identifier == target.identifier else { continue }
      } catch {
        return .refused(.brokenDirectTarget(error))
      }
      return .direct(DirectInvocation(direct, named: target.description))
    }
    return nil
  }
}

/// A direct target with its actor's type erased.
struct DirectInvocation: Sendable {
  let invoke: @Sendable (any DistributedActor, inout SocketInvocationDecoder) async throws -> ByteWriter?
  /// For a method run on the reading thread (`DirectTarget(onReadingThread:)`).
  let inline: (@Sendable (any DistributedActor, inout SocketInvocationDecoder) throws -> ByteWriter?)?

  init<Actor: DistributedActor>(_ target: DirectTarget<Actor>, named name: String)
  where Actor.ActorSystem == SocketActorSystem {
    @Sendable func typed(_ actor: any DistributedActor) throws -> Actor {
      guard let actor = actor as? Actor else {
        throw Refusal(reason: .noSuchMethod(actor: String(reflecting: type(of: actor)), target: name))
      }
      return actor
    }
    invoke = { actor, arguments in try await target.invoke(typed(actor), &arguments) }
    if let inline = target.inline {
      self.inline = { actor, arguments in try inline(typed(actor), &arguments) }
    } else {
      self.inline = nil
    }
  }
}
