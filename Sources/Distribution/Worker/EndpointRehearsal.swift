internal import Transport

/// What a worker's first exchanges with its host make the runtime do once per process, done
/// once in a worker template: the targets of its endpoints' distributed methods read from
/// calls on stand-ins (the runtime demangles each method's name and builds the metadata of
/// its thunk), and the endpoints resolved as remote proxies. A fork inherits them, instead of
/// spending a millisecond of its start on them before its greeting.
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
  }
}
