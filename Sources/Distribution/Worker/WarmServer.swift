import Bulkhead
import Synchronization
internal import Transport

/// What a worker of the composition's warm pool serves: nothing, until the host assigns it a
/// boundary over the connection it already holds (`Wire.Request.assign`). From then on it is
/// that boundary's worker, exactly as one started for it: the connection, the handshake and
/// the loading of the app were done ahead, off the path of the action that presents a child.
///
/// A warm worker takes one boundary in its life: the host retires it with its child, so no
/// process ever serves a feature after holding another's state.
final class WarmServer<Root: Reducer>: BoundaryServer {
  /// The app's root and the effects connection, until a boundary is assigned: taken on the
  /// serving thread, once.
  private let pending: Mutex<Pending?>
  private let assigned = Mutex<(any BoundaryServer)?>(nil)
  private let app: String
  private let apps: [String]
  private let command: WorkerCommand

  private struct Pending {
    let root: Root
    let effects: FramedConnection
  }

  init(_ root: sending Root, effects: sending FramedConnection, app: String, apps: [String], command: WorkerCommand) {
    pending = Mutex(Pending(root: root, effects: effects))
    self.app = app
    self.apps = apps
    self.command = command
  }

  /// Makes this server's metadata, in a worker template (`BoundaryWorker.warmUp(_:)`).
  static func makeMetadata() {
    TypeMetadata.make(Self.self, Pending.self)
  }

  var hello: Wire.Hello { assigned.withLock { $0?.hello } ?? .warm }

  func handle(_ request: Wire.Request) -> Wire.Answer {
    if let server = assigned.withLock({ $0 }) { return server.handle(request) }
    let reply: Wire.Reply
    switch request {
    case let .assign(boundary, brief): reply = .assigned(assign(boundary, brief: brief))
    case .ping: reply = .pong
    case .run, .drop: reply = .failed("this worker waits in the warm pool and serves no boundary yet")
    }
    return Wire.Answer(warnings: [], reply: reply)
  }

  /// Becomes the worker of `boundary`, or says why it cannot (then the host lets it go).
  private func assign(_ boundary: String, brief: String) -> Wire.Hello {
    do {
      let made = try pending.withLock { pending -> any BoundaryServer in
        // Only the first assignment finds the root: a second one would be a host's mistake.
        guard let taken = pending.take() else {
          return RefusingServer(.cannotServe(boundary, reason: "it serves a boundary already"))
        }
        let nesting = Nesting(inner: try InnerPlacement(brief: brief), command: command)
        return try BoundaryWorker.server(for: taken.root, boundary: boundary, effects: taken.effects, nesting: nesting)
          ?? RefusingServer(
            .unknownBoundary(boundary, app: app, boundaries: taken.root.boundaries.map(\.path), apps: apps))
      }
      assigned.withLock { $0 = made }
      return made.hello
    } catch {
      return .refusing(.cannotServe(boundary, reason: "\(error)"))
    }
  }

  func stop() {
    assigned.withLock { $0 }?.stop()
  }
}
