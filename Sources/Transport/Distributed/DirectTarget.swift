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

  /// A method that returns a value.
  package init<Result: WireCodable>(
    _ method: @escaping @Sendable (Actor, inout SocketInvocationDecoder) async throws -> Result
  ) {
    invoke = { actor, arguments in
      var writer = ByteWriter()
      try await method(actor, &arguments).write(to: &writer)
      return writer
    }
  }

  /// A method that returns nothing.
  package init(_ method: @escaping @Sendable (Actor, inout SocketInvocationDecoder) async throws -> Void) {
    invoke = { actor, arguments in
      try await method(actor, &arguments)
      return nil
    }
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
  /// Straight to the method: the closure checks the actor's type, so a resolution made for
  /// one actor never runs on another's.
  case direct(@Sendable (any DistributedActor, inout SocketInvocationDecoder) async throws -> ByteWriter?)

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
    return .direct { actor, arguments in
      guard let actor = actor as? Actor else { throw RemoteCallError.remote("\(method) called on \(type(of: actor))") }
      return try await direct.invoke(actor, &arguments)
    }
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
    return .direct { actor, arguments in
      guard let actor = actor as? Actor else { throw RemoteCallError.remote("\(name) called on \(type(of: actor))") }
      return try await direct.invoke(actor, &arguments)
    }
  }
}
