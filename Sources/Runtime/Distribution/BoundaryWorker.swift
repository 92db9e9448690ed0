import Synchronization
import Transport

/// The worker side of a remote boundary: finds its child reducer in the app's tree, keeps the
/// worker's copy of the child state, and runs the child's actions and effects for the host.
///
/// ```swift
/// // In child-worker, after connecting to the host:
/// try BoundaryWorker.serve(TwoCounters(), boundary: "counter1", control: control, effects: effects)
/// ```
public enum BoundaryWorker {
  /// Serves `boundary` of `root` until the host closes the control connection.
  public static func serve<Root: Reducer>(
    _ root: Root, boundary path: String, control: FramedConnection, effects: FramedConnection
  ) throws {
    var finder = BoundaryFinder(target: path)
    visitBoundaries(of: root, under: "", with: &finder)
    guard let make = finder.makeServer else {
      throw DistributionError.unknownBoundary(path, known: root.boundaries.map(\.path))
    }
    let server = try make(effects)
    while let frame = try control.receive() {
      let reply: Wire.Reply
      do {
        reply = server.handle(try Wire.decode(Wire.Request.self, from: frame))
      } catch {
        reply = .failed("\(error)")
      }
      try control.send(Wire.frame(reply))
    }
    server.stop()
  }
}

/// Serves one boundary's requests.
protocol BoundaryServer {
  func handle(_ request: Wire.Request) -> Wire.Reply
  func stop()
}

private struct BoundaryFinder: BoundaryVisitor {
  let target: String
  var makeServer: ((FramedConnection) throws -> any BoundaryServer)?

  mutating func visit<Child: Reducer>(
    _ child: Child, at path: String, kind: BoundaryDescription.Kind
  ) {
    guard path == target, makeServer == nil else { return }
    makeServer = { [target] effects in try ChildServer(child, boundary: target, effects: effects) }
  }
}

private final class ChildServer<Child: Reducer>: BoundaryServer {
  private struct Slot {
    var version: UInt64
    var state: Child.State
  }

  private let child: Child
  private let states: ValueCoding<Child.State>
  private let actions: ValueCoding<Child.Action>
  private let dependencies = DependencyValues.current.withFreshDefaults()
  private let runner: WorkerEffects
  private var slots: [[UInt8]: Slot] = [:]

  init(_ child: Child, boundary: String, effects: FramedConnection) throws {
    guard let states = ValueCoding(Child.State.self) else {
      throw DistributionError.notCodable(boundary: boundary, type: "\(Child.State.self)")
    }
    guard let actions = ValueCoding(Child.Action.self) else {
      throw DistributionError.notCodable(boundary: boundary, type: "\(Child.Action.self)")
    }
    self.child = child
    self.states = states
    self.actions = actions
    self.runner = WorkerEffects(effects)
  }

  func handle(_ request: Wire.Request) -> Wire.Reply {
    switch request {
    case let .drop(slot):
      slots[slot] = nil
      return .dropped
    case let .run(slot, baseVersion, patch, action):
      do {
        return try run(slot: slot, baseVersion: baseVersion, patch: patch, action: action)
      } catch {
        return .failed("\(error)")
      }
    }
  }

  func stop() { runner.stop() }

  private func run(
    slot key: [UInt8], baseVersion: UInt64, patch: StatePatch?, action bytes: [UInt8]
  ) throws -> Wire.Reply {
    guard var slot = try current(key, baseVersion: baseVersion, patch: patch) else {
      return .stale(version: slots[key]?.version ?? Wire.emptyVersion)
    }
    let action = try actions.decode(bytes)
    let before = slot.state
    let effect = DependencyValues.$current.withValue(dependencies) {
      child.reduce(into: &slot.state, action: action)
    }
    let reply = try states.patch(before, slot.state)
    if reply != nil { slot.version += 1 }
    slots[key] = slot
    let portable = try effect.portable(encode: actions.encode) { body in
      runner.keep(body, encode: actions.encode)
    }
    return .ran(version: slot.version, patch: reply, effect: portable)
  }

  /// The slot brought to the host's version, or nil when the request is based on another
  /// version than this worker's.
  private func current(_ key: [UInt8], baseVersion: UInt64, patch: StatePatch?) throws -> Slot? {
    let existing = baseVersion == Wire.emptyVersion ? nil : slots[key]
    guard baseVersion == Wire.emptyVersion || existing?.version == baseVersion else { return nil }
    guard let patch else {
      guard let existing else {
        throw DistributionError.protocolViolation("no state for this slot and no patch with it")
      }
      return existing
    }
    return Slot(version: baseVersion + 1, state: try states.apply(patch, existing?.state))
  }
}
