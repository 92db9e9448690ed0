import Distributed

/// A distributed actor whose hot methods a `SocketActorSystem` calls directly.
///
/// Swift's `executeDistributedTarget` finds a target by its mangled name and demangles its
/// parameter types on every call, a few microseconds each time. The system instead resolves
/// a target once per connection, when the peer first names it: if the actor's type lists the
/// method here, later calls go straight to it.
///
/// ```swift
/// extension Counter: DirectlyCallable {
///   static let directTargets: [String: DirectTarget<Counter>] = [
///     "add(_:)": DirectTarget { counter, arguments in try await counter.add(arguments.next()) },
///   ]
/// }
/// ```
package protocol DirectlyCallable: DistributedActor where ActorSystem == SocketActorSystem {
  /// The methods called directly, by name and argument labels as Swift prints them: `add(_:)`.
  static var directTargets: [String: DirectTarget<Self>] { get }
}

/// One method of a `DirectlyCallable` actor: reads the call's arguments in order, calls the
/// method, and lays out its result.
package struct DirectTarget<Actor: DistributedActor>: Sendable {
  let invoke: @Sendable (Actor, inout SocketInvocationDecoder) async throws -> ByteWriter?
  /// Runs the method at once on the thread that read the call; nil for a method that may wait.
  let inline: (@Sendable (Actor, inout SocketInvocationDecoder) throws -> ByteWriter?)?

  /// A method that returns a value.
  package init<Result: WireCodable>(
    _ method: @escaping @Sendable (Actor, inout SocketInvocationDecoder) async throws -> Result
  ) {
    invoke = { actor, arguments in try await method(actor, &arguments).written }
    inline = nil
  }

  /// A method that returns nothing.
  package init(_ method: @escaping @Sendable (Actor, inout SocketInvocationDecoder) async throws -> Void) {
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
  /// "handle(_:)": DirectTarget(onReadingThread: { endpoint, arguments in endpoint.handle(try arguments.next()) })
  /// ```
  package init<Result: WireCodable>(
    onReadingThread method: @escaping @Sendable (isolated Actor, inout SocketInvocationDecoder) throws -> Result
  ) {
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
  package init(onReadingThread method: @escaping @Sendable (isolated Actor, inout SocketInvocationDecoder) throws -> Void) {
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
  /// A method named by `SocketActorSystem.call(_:method:arguments:)` or `post` that the actor
  /// does not list.
  case unknown
  /// Straight to the method: the closures check the actor's type, so a resolution made for
  /// one actor never runs on another's.
  case direct(DirectInvocation)

  /// What starts the name of a target called by method name rather than by mangled name;
  /// mangled names start with `$`.
  static let namedPrefix = "#"

  /// How calls by method name (`add(_:_:)`) on actors of `actor`'s type are made.
  static func resolve(method: String, on actor: any DistributedActor) -> TargetResolution {
    guard let callable = actor as? any DirectlyCallable else { return .unknown }
    return resolveDirect(method: method, on: callable)
  }

  private static func resolveDirect<Actor: DirectlyCallable>(method: String, on _: Actor) -> TargetResolution {
    guard let direct = Actor.directTargets[method] else { return .unknown }
    return .direct(DirectInvocation(direct, named: method))
  }

  /// How calls to `target` on actors of `actor`'s type are made.
  static func resolve(_ target: RemoteCallTarget, on actor: any DistributedActor) -> TargetResolution {
    guard let callable = actor as? any DirectlyCallable else { return .byName }
    return resolveDirect(target, on: callable)
  }

  private static func resolveDirect<Actor: DirectlyCallable>(_ target: RemoteCallTarget, on _: Actor) -> TargetResolution {
    // Swift prints a target as `Module.Type.method(labels:)`.
    let prefix = String(reflecting: Actor.self) + "."
    let name = target.description
    guard name.hasPrefix(prefix), let direct = Actor.directTargets[String(name.dropFirst(prefix.count))] else {
      return .byName
    }
    return .direct(DirectInvocation(direct, named: name))
  }
}

/// A direct target with its actor's type erased.
struct DirectInvocation: Sendable {
  let invoke: @Sendable (any DistributedActor, inout SocketInvocationDecoder) async throws -> ByteWriter?
  /// For a method run on the reading thread (`DirectTarget(onReadingThread:)`).
  let inline: (@Sendable (any DistributedActor, inout SocketInvocationDecoder) throws -> ByteWriter?)?

  init<Actor: DistributedActor>(_ target: DirectTarget<Actor>, named name: String) {
    @Sendable func typed(_ actor: any DistributedActor) throws -> Actor {
      guard let actor = actor as? Actor else { throw RemoteCallError.remote("\(name) called on \(type(of: actor))") }
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
