internal import Transport

/// What a worker's first exchanges with its host make the runtime do once per process, done
/// once in a worker template: the targets of its endpoints' distributed methods read from
/// calls on stand-ins (the runtime demangles each method's name and builds the metadata of
/// its thunk), the endpoints resolved as remote proxies, and the worker's own hosted and a
/// first call to each taken in. A fork inherits them, instead of spending a millisecond of its
/// start on them before its greeting.
///
/// Over a socket pair of the template's own, read by its callers: no thread starts (a
/// template must have only its own when it forks), and nothing is sent.
enum EndpointRehearsal {
  static func run() {
    guard let (near, far) = try? UnixSocket.pair() else { return }
    let system = SocketActorSystem(connection: FramedConnection(near), reading: .byCaller)
    defer {
      system.close()
      far.close()
    }
    // Errors only mean a target left for the worker to read, as it would have.
    for direct in BoundaryEndpoint.directTargets { _ = try? direct.method.target(using: system) }
    for direct in WorkerEffectsEndpoint.directTargets { _ = try? direct.method.target(using: system) }
    for direct in HostEndpoint.directTargets { _ = try? direct.method.target(using: system) }
    _ = try? HostEndpoint.resolve(id: HostEndpoint.id, using: system)
    _ = try? BoundaryEndpoint.resolve(id: BoundaryEndpoint.id, using: system)
    // An endpoint hosted, and the first calls to the worker's endpoints taken in, as a worker
    // does before its greeting: the first time in a process, each makes the runtime scan every
    // loaded library's conformances (most of a forked worker's start to its greeting, seen by
    // perf).
    let effects = system.hosting(WorkerEffectsEndpoint.id) {
      WorkerEffectsEndpoint(effects: WeakBox<WorkerEffects>(), actorSystem: $0)
    }
    let boundary = system.hosting(BoundaryEndpoint.id) {
      BoundaryEndpoint(serving: RefusingServer(.cannotServe("", reason: "")), actorSystem: $0)
    }
    system.rehearseIncomingCall(to: effects)
    system.rehearseIncomingCall(to: boundary)
    // The table holds them, and they their system: let go, or the pair stayed open.
    system.resignID(effects.id)
    system.resignID(boundary.id)
  }
}
