import Foundation
import Synchronization
internal import Transport

/// The worker side of a remote boundary: finds its child reducer in the app's tree, keeps the
/// worker's copy of the child state, and runs the child's actions and effects for the host.
///
/// ```swift
/// // The main of a worker-only executable:
/// BoundaryWorker.main(apps: [guestbook])
/// ```
public enum BoundaryWorker {
  /// Serves `boundary` of `root` for the host that started this process, until the host
  /// closes the connection or dies. The host hands the socket and the launch secret over
  /// standard input.
  ///
  /// - Throws: `DistributionError.usage` when standard input is a terminal (the process was
  ///   started by hand, not by a host), and what connecting or serving ran into.
  public static func serve<Root: Reducer>(_ root: Root, boundary path: String) throws {
    let startedByHand = DistributionError.usage(
      """
      this process serves a boundary for a Bulkhead host, which starts it and hands it a socket \
      and a secret on standard input; it is not started by hand. Run the host instead \
      (./compose.sh run APP, or the app's executable with --app NAME).
      """)
    guard isatty(STDIN_FILENO) == 0 else { throw startedByHand }
    let launch: WorkerLaunch
    do {
      launch = try WorkerLaunch.receive()
    } catch .authenticationFailed {
      throw startedByHand
    }
    let control = try launch.connect()
    let effects = try launch.connect()
    try serve(root, boundary: path, control: control, effects: effects)
  }

  /// Serves `boundary` of `root` until the host closes the control connection.
  static func serve<Root: Reducer>(
    _ root: Root, boundary path: String, control: FramedConnection, effects: FramedConnection
  ) throws {
    var finder = BoundaryFinder(target: path)
    visitBoundaries(of: root, under: "", with: &finder)
    guard let make = finder.makeServer else {
      throw DistributionError.unknownBoundary(path, known: root.boundaries.map(\.path))
    }
    let server = try make(effects)
    try control.send(Wire.frame(server.greeting))
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
  /// What the worker tells the host it serves.
  var greeting: Wire.Greeting { get }
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

/// Serves one child boundary: the worker's copies of the child's states, one per slot, and
/// the outcomes of effect actions it computed ahead of the host.
private final class ChildServer<Child: Reducer>: BoundaryServer, OutcomePrecomputer {
  private struct Slot {
    var version: UInt64
    var state: Child.State
  }

  /// An effect action run ahead of the host: its result stands in for the slot once the host
  /// takes it, and its effect bodies are dropped if the host does not.
  private struct Tentative {
    let slot: [UInt8]
    let outcome: Wire.Outcome
    let state: Child.State
    let runs: [UInt64]
    /// Whether the slot still waits to hear which state is the host's.
    var isOpen = true
  }

  private struct Core {
    let child: Child
    var slots: [[UInt8]: Slot] = [:]
    var tentative: [UInt64: Tentative] = [:]
    /// The open tentative outcome of each slot, by sequence: at most one at a time.
    var open: [[UInt8]: UInt64] = [:]
  }

  private let core: Locked<Core>
  private let states: ValueCoding<Child.State>
  private let actions: ValueCoding<Child.Action>
  private let dependencies: DependencyValues
  private let runner: WorkerEffects
  let greeting: Wire.Greeting

  init(_ child: Child, boundary: String, effects: FramedConnection) throws {
    guard let states = ValueCoding(Child.State.self) else {
      throw DistributionError.notCodable(boundary: boundary, type: "\(Child.State.self)")
    }
    guard let actions = ValueCoding(Child.Action.self) else {
      throw DistributionError.notCodable(boundary: boundary, type: "\(Child.Action.self)")
    }
    self.core = Locked(Core(child: child))
    self.states = states
    self.actions = actions
    self.runner = WorkerEffects(effects)
    var dependencies = DependencyValues.current.withFreshDefaults()
    dependencies.continuousClock = HostClock(effects: runner)
    self.dependencies = dependencies
    self.greeting = Wire.Greeting(boundary: boundary, child: Child.self)
    runner.precomputer = self
  }

  func handle(_ request: Wire.Request) -> Wire.Reply {
    core.withLock { core in
      switch request {
      case .ping:
        return .pong
      case let .drop(slot):
        close(&core, slot: slot, hostVersion: nil)
        core.slots[slot] = nil
        return .dropped
      case let .run(slot, baseVersion, patch, action):
        do {
          return try run(&core, slot: slot, baseVersion: baseVersion, patch: patch, action: action)
        } catch {
          return .failed("\(error)")
        }
      }
    }
  }

  func stop() { runner.stop() }

  func outcome(of bytes: [UInt8], in key: [UInt8], sequence: UInt64) -> Wire.Outcome? {
    core.withLock { core in
      guard core.open[key] == nil, let slot = core.slots[key], let action = try? actions.decode(bytes)
      else { return nil }
      var state = slot.state
      var runs: [UInt64] = []
      guard let outcome = try? reduce(core.child, &state, at: slot.version, action: action, slot: key, runs: &runs)
      else {
        runner.discard(runs)
        return nil
      }
      core.tentative[sequence] = Tentative(slot: key, outcome: outcome, state: state, runs: runs)
      core.open[key] = sequence
      return outcome
    }
  }

  func settle(sequence: UInt64, taken: Bool) {
    let discarded = core.withLock { core -> [UInt64] in
      guard let tentative = core.tentative.removeValue(forKey: sequence) else { return [] }
      if tentative.isOpen {
        core.open[tentative.slot] = nil
        if taken { core.slots[tentative.slot] = Slot(version: tentative.outcome.version, state: tentative.state) }
      }
      return taken ? [] : tentative.runs
    }
    runner.discard(discarded)
  }

  private func run(
    _ core: inout Core, slot key: [UInt8], baseVersion: UInt64, patch: StatePatch?, action bytes: [UInt8]
  ) throws -> Wire.Reply {
    close(&core, slot: key, hostVersion: baseVersion)
    guard var slot = try current(core.slots[key], baseVersion: baseVersion, patch: patch) else {
      return .stale(version: core.slots[key]?.version ?? Wire.emptyVersion)
    }
    var runs: [UInt64] = []
    let outcome = try reduce(core.child, &slot.state, at: slot.version, action: try actions.decode(bytes), slot: key, runs: &runs)
    core.slots[key] = Slot(version: outcome.version, state: slot.state)
    return .ran(outcome)
  }

  /// Runs `action` on `state`, keeping the effect bodies it returns, and describes the result.
  private func reduce(
    _ child: Child, _ state: inout Child.State, at version: UInt64, action: Child.Action,
    slot: [UInt8], runs: inout [UInt64]
  ) throws -> Wire.Outcome {
    let before = state
    let effect = DependencyValues.$current.withValue(dependencies) {
      child.reduce(into: &state, action: action)
    }
    let patch = try states.patch(before, state)
    let portable = try effect.portable(encode: actions.encode) { body in
      let run = runner.keep(body, encode: actions.encode, slot: slot)
      runs.append(run)
      return run
    }
    return Wire.Outcome(
      baseVersion: version, version: patch == nil ? version : version + 1, patch: patch, effect: portable)
  }

  /// A request for `key` arrived: the host's copy is at `hostVersion` (nil: it has none), which
  /// says whether it took the slot's open tentative outcome. Its effect bodies wait for the
  /// host's word in `settle`.
  private func close(_ core: inout Core, slot key: [UInt8], hostVersion: UInt64?) {
    guard let sequence = core.open.removeValue(forKey: key), var tentative = core.tentative[sequence]
    else { return }
    tentative.isOpen = false
    core.tentative[sequence] = tentative
    let outcome = tentative.outcome
    if outcome.version != outcome.baseVersion, hostVersion == outcome.version {
      core.slots[key] = Slot(version: outcome.version, state: tentative.state)
    }
  }

  /// The slot brought to the host's version, or nil when the request is based on another
  /// version than this worker's.
  private func current(_ existing: Slot?, baseVersion: UInt64, patch: StatePatch?) throws -> Slot? {
    let existing = baseVersion == Wire.emptyVersion ? nil : existing
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
