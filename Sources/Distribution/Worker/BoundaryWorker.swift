import Bulkhead
import Dispatch
import Foundation
import Synchronization
internal import Transport

/// The worker side of a remote boundary: finds its child reducer in the app's tree, keeps the
/// worker's copy of the child state, and runs the child's actions and effects for the host.
///
/// ```swift
/// // A worker's main, when a host has started this process (`BoundaryWorker.main(apps:)` in
/// // `BulkheadTools` reads which app and boundary from the arguments):
/// try BoundaryWorker.serve(Guestbook(), boundary: "composer")
/// ```
public enum BoundaryWorker {
  /// Serves `boundary` of `root` for the host that started this process, until the host
  /// closes the connection or dies. The host hands the socket and the launch secret over
  /// standard input.
  ///
  /// - Throws: `DistributionError.usage` when standard input is a terminal (the process was
  ///   started by hand, not by a host), and what connecting or serving ran into.
  public static func serve<Root: Reducer>(_ root: Root, boundary path: String) throws {
    let host = try connectToHost()
    try serve(
      root, boundary: path, control: host.control, effects: host.effects,
      nesting: Nesting(inner: try InnerPlacement(brief: host.brief), command: nil))
  }

  /// The control and effects connections to the host that started this process and handed it
  /// a socket and a secret on standard input, and the host's brief from the same launch.
  ///
  /// - Throws: `DistributionError.usage` when the process was started by hand, and what
  ///   connecting ran into.
  static func connectToHost() throws -> (control: FramedConnection, effects: FramedConnection, brief: String) {
    let launch = try launchFromHost()
    return (try launch.connect(.control), try launch.connect(.effects), launch.brief)
  }

  /// The socket, secret and brief that the host that started this process handed it on
  /// standard input.
  ///
  /// - Throws: `DistributionError.usage` when the process was started by hand.
  static func launchFromHost() throws -> WorkerLaunch {
    let startedByHand = DistributionError.usage(
      """
      this process serves a boundary for a Bulkhead host, which starts it and hands it a socket \
      and a secret on standard input; it is not started by hand. Run the host instead \
      (./compose.sh run APP, or the app's executable with --app NAME).
      """)
    guard isatty(STDIN_FILENO) == 0 else { throw startedByHand }
    do {
      return try WorkerLaunch.receive()
    } catch .authenticationFailed {
      throw startedByHand
    }
  }

  /// Serves `boundary` of `root` until the host closes the control connection: hosts the
  /// boundary's `BoundaryEndpoint` on the control connection and its `WorkerEffectsEndpoint`
  /// on the effects connection, and calls the host's `HostEndpoint`. A root without that
  /// boundary greets the host with the boundaries it has, and `app` and the `apps` of this
  /// executable when the worker was started as one of them, then throws. The boundaries
  /// `nesting` places inside this one run in workers this one starts and supervises.
  static func serve<Root: Reducer>(
    _ root: Root, boundary path: String, control: FramedConnection, effects: FramedConnection,
    app: String? = nil, apps: [String] = [], nesting: Nesting
  ) throws {
    guard let server = try server(for: root, boundary: path, effects: effects, nesting: nesting) else {
      let known = root.boundaries.map(\.path)
      serve(RefusingServer(.unknownBoundary(path, app: app, boundaries: known, apps: apps)), on: control)
      throw DistributionError.unknownBoundary(path, known: known)
    }
    serve(server, on: control)
  }

  /// The server of `boundary` of `root`, its effects on `effects`; nil when `root` has no
  /// such boundary.
  static func server<Root: Reducer>(
    for root: Root, boundary path: String, effects: FramedConnection, nesting: Nesting
  ) throws -> (any BoundaryServer)? {
    var finder = BoundaryFinder(target: path, nesting: nesting)
    visitBoundaries(of: root, under: "", with: &finder)
    return try finder.makeServer?(effects)
  }

  /// Serves `server`'s endpoint on `control` until the host closes it.
  static func serve(_ server: any BoundaryServer, on control: FramedConnection) {
    // Read on this thread, the process's main one in a worker: a SIGSTOP sent to the process
    // is taken by the main thread first, so a stopped worker answers nothing more.
    let system = SocketActorSystem(connection: control, reading: .byServingThread)
    let endpoint = system.hosting(BoundaryEndpoint.id) { BoundaryEndpoint(serving: server, actorSystem: $0) }
    system.serve()
    server.stop()
    withExtendedLifetime(endpoint) {}
  }
}

extension BoundaryWorker {
  /// Does once, in a worker template, what every worker forked from it would otherwise do
  /// first for its boundary: finds out that the child's state and actions are `Codable` (a
  /// conformance lookup that scans every loaded library, most of a forked worker's start when
  /// each worker does it) and makes their metadata and names. Starts no thread: a template
  /// must have only its own when it forks.
  static func warmUp<Root: Reducer>(_ root: Root) {
    var rehearsal = Rehearsal()
    visitBoundaries(of: root, under: "", with: &rehearsal)
    // What every worker makes once whatever its boundary, the first time a fork does (its
    // effects' bookkeeping, a warm worker's server): made here, their metadata is inherited.
    _ = WorkerEffects.Machine(window: WorkerEffects.window, batch: WorkerEffects.batch)
    TypeMetadata.make(WorkerEffects.Machine.Event.self, WorkerEffects.Machine.Command.self)
    WarmServer<Root>.makeMetadata()
    // And what every worker does on its way to its greeting: finds this executable (for the
    // workers it may start of its own), and its endpoints' targets.
    _ = WorkerCommand.runningExecutable
    EndpointRehearsal.run()
    // A server's dependencies start from the task-local ones, made the first time they are
    // read, fresh, with the host's clock set in them: a clock's first setting is made here.
    var dependencies = DependencyValues.current.withFreshDefaults()
    dependencies.continuousClock = ContinuousClock()
    withExtendedLifetime(dependencies) {}
    // And visits the boundaries as a worker looking for its own does.
    if let inner = try? InnerPlacement(brief: "") {
      var finder = BoundaryFinder(target: "", nesting: Nesting(inner: inner, command: nil))
      visitBoundaries(of: root, under: "", with: &finder)
    }
  }
}

/// Visits every boundary as a worker serving it would, without serving. Where the child's state
/// can be made from least values (`LeastValueDecoder`), it also crosses once as a worker's
/// first request makes it cross (whole, decoded, compared field by field, patched): the
/// conformance lookups that takes the first time in a process (most of the first action of a
/// worker claimed from the warm pool) are then made once here, and every fork inherits them.
private struct Rehearsal: BoundaryVisitor {
  mutating func visit<Child: Reducer>(_ child: Child, at path: String, kind: BoundaryDescription.Kind) {
    let states = ValueCoding(Child.State.self)
    let actions = ValueCoding(Child.Action.self)
    _ = Wire.Greeting(boundary: path, child: Child.self)
    let sample = LeastValueDecoder.sample(of: Child.State.self)
    ChildServer<Child>.makeMetadata(keeping: sample)
    // Errors only mean a path left unrehearsed: the worker takes it as it would have.
    if let states, let sample {
      _ = try? states.patch(nil, sample).map { whole in try states.apply(whole, nil) }
      _ = try? states.patch(sample, states.decode(states.encode(sample)))
      // A first action changes a field, which the sample crossing unchanged never does.
      if let encodable = sample as? any Encodable { StatePatch.rehearseChange(of: encodable) }
    }
    if let actions, let sample = LeastValueDecoder.sample(of: Child.Action.self) {
      _ = try? actions.decode(actions.encode(sample))
    }
  }
}

/// Serves one boundary's requests.
protocol BoundaryServer: Sendable {
  /// What the worker tells the host it serves, or why it serves nothing.
  var hello: Wire.Hello { get }
  /// The reply to `request`, with the runtime warnings raised while handling it.
  func handle(_ request: Wire.Request) -> Wire.Answer
  func stop()
}

/// Serves nothing, and greets the host with why.
struct RefusingServer: BoundaryServer {
  let refusal: Wire.Refusal

  init(_ refusal: Wire.Refusal) { self.refusal = refusal }

  var hello: Wire.Hello { .refusing(refusal) }

  /// A host does not ask a worker that refused it: one that does is told so.
  func handle(_ request: Wire.Request) -> Wire.Answer {
    Wire.Answer(warnings: [], reply: .failed("this worker refused the boundary at its greeting"))
  }

  func stop() {}
}

/// The boundaries a worker places inside its own, and how it starts their workers: nil for a
/// worker that cannot tell (one serving a root of its own, `serve(_:boundary:)`).
struct Nesting: Sendable {
  let inner: InnerPlacement
  let command: WorkerCommand?
}

private struct BoundaryFinder: BoundaryVisitor {
  let target: String
  let nesting: Nesting
  var makeServer: ((FramedConnection) throws -> any BoundaryServer)?
  /// The boundaries seen so far whose children can dismiss themselves; a parent is visited
  /// before the boundaries inside it.
  private var dismissible: [String] = []

  init(target: String, nesting: Nesting) {
    self.target = target
    self.nesting = nesting
  }

  mutating func visit<Child: Reducer>(
    _ child: Child, at path: String, kind: BoundaryDescription.Kind
  ) {
    if Child.self is any DismissibleBoundary.Type { dismissible.append(path) }
    guard path == target, makeServer == nil else { return }
    // Inside a presented child, `dismiss()` reaches the presenting operator only on the host.
    let forwardsDismissal = dismissible.contains { target.hasPrefix($0 + ".") }
    makeServer = { [target, nesting] effects in
      guard !nesting.inner.entries.isEmpty else {
        return try ChildServer(child, boundary: target, effects: effects, forwardsDismissal: forwardsDismissal)
      }
      guard let command = nesting.command else {
        throw DistributionError.usage(
          "boundaries placed inside \(target) need its worker to start workers of its own, which a worker of "
            + "WorkerCommand(executable:arguments:) cannot: use WorkerCommand.executable(_:app:)")
      }
      // Events and output of the inner workers go to this worker's standard error, which the
      // host labels with this boundary and reports; events as marked lines it types again.
      let composition = try Composition(
        nestedIn: target, child: child, inner: nesting.inner, command: command,
        onEvent: { event in reportUp(ReportedEventLine.line(for: event)) },
        onOutput: { line in reportUp("[\(line.boundary) \(line.worker) \(line.stream.rawValue)] \(line.text)") })
      do {
        return try ChildServer(
          composition.compose(child), boundary: target, effects: effects, forwardsDismissal: forwardsDismissal,
          nested: composition)
      } catch {
        composition.shutdown()
        throw error
      }
    }
  }
}

/// Writes `line` to standard error, which the host reads as this worker's output.
private func reportUp(_ line: String) {
  FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// What the host said of an effect action's outcome, waiting for the next user of a
/// `ChildServer`'s core. Not nested in the generic server: code that runs unspecialized for a
/// child would look up the metadata of a nested type, and of arrays of it, on every request.
private struct Settlement {
  let sequence: UInt64
  let taken: Bool
}

/// Serves one child boundary: the worker's copies of the child's states, one per slot, and
/// the outcomes of effect actions it computed ahead of the host.
private final class ChildServer<Child: Reducer>: BoundaryServer, OutcomePrecomputer {
  private typealias Slot = WorkerSlots<KeptState>.Slot

  /// The child comes last: the fields before it have fixed offsets, which code that runs
  /// unspecialized for the child reads without looking up the metadata of `Core`.
  private struct Core {
    var slots = WorkerSlots<KeptState>()
    /// The worker's own dependencies in the host's context, and the host's clock; their
    /// defaults live as long as the context does, as a store's do.
    var base: DependencyValues
    /// The dependencies of the host's last header, which reducers run with.
    var dependencies: DependencyValues?
    var host: HostDependencies?
    let child: Child
  }

  private let core: Locked<Core>
  /// Settlements arrive on the thread that reads the effects connection, which must never wait
  /// for `core`: a request may hold it while its reducer waits, on that same thread, for the
  /// host's answer to a dependency question. They are applied by whoever takes `core` next.
  private let settlements = Mutex<[Settlement]>([])
  private let states: ValueCoding<Child.State>
  private let actions: ValueCoding<Child.Action>
  private let runner: WorkerEffects
  private let boundary: String
  private let warned = WarnedKeys()
  /// The composition of the boundaries placed inside this one, whose workers this one runs.
  private let nested: Composition?
  let hello: Wire.Hello

  init(
    _ child: Child, boundary: String, effects: FramedConnection, forwardsDismissal: Bool,
    nested: Composition? = nil
  ) throws {
    guard let states = ValueCoding(Child.State.self) else {
      throw DistributionError.notCodable(boundary: boundary, type: "\(Child.State.self)")
    }
    guard let actions = ValueCoding(Child.Action.self) else {
      throw DistributionError.notCodable(boundary: boundary, type: "\(Child.Action.self)")
    }
    self.states = states
    self.actions = actions
    self.runner = try WorkerEffects(
      effects, standsInForWorkers: nested != nil, forwardsDismissal: forwardsDismissal)
    self.boundary = boundary
    self.nested = nested
    var base = DependencyValues.current.withFreshDefaults()
    base.continuousClock = HostClock(effects: runner)
    self.core = Locked(Core(base: base, child: child))
    self.hello = .serving(Wire.Greeting(boundary: boundary, child: Child.self))
    runner.precomputer = self
  }

  /// Makes the metadata of what a server of this child keeps (its core, its slots and their
  /// events), which the runtime otherwise builds the first time a process makes such a server
  /// and runs a first request; `sample`, a state, takes a slot through a request and a drop.
  /// A worker template does this for each boundary, so that its forks inherit it. Starts no
  /// thread.
  static func makeMetadata(keeping sample: Child.State?) {
    TypeMetadata.make(Locked<Core>.self, Effect<Child.Action>.self)
    var slots = WorkerSlots<KeptState>()
    slots.requested(slot: [], hostVersion: nil)
    if let sample {
      slots.ran(slot: [], Slot(version: slots.newVersion(), state: KeptState(sample)))
      slots.dropped(slot: [])
    }
  }

  func handle(_ request: Wire.Request) -> Wire.Answer {
    let start = MonotonicInstant.now
    let warnings = CollectedWarnings()
    let reply = withRuntimeWarningHandler(warnings.append) {
      withCore { core -> Wire.Reply in
        switch request {
        case .ping:
          return .pong
        case .assign:
          return .failed("this worker serves \(boundary) already; only a warm worker takes a boundary")
        case let .drop(slot):
          core.slots.dropped(slot: slot)
          return .dropped
        case let .run(slot, baseVersion, patch, action, dependencies, _):
          do {
            if let dependencies { adopt(dependencies, in: &core) }
            return try run(&core, slot: slot, baseVersion: baseVersion, patch: patch, action: action)
          } catch {
            return .failed("\(error)")
          }
        }
      }
    }
    // The host takes at most so many with a reply; more would only repeat.
    return Wire.Answer(
      warnings: Array(warnings.all.prefix(WorkerLink.maximumWarnings)), reply: reply,
      handlingNanoseconds: MonotonicInstant.now.nanoseconds(since: start))
  }

  func stop() {
    runner.stop()
    nested?.shutdown()
  }

  func outcome(of action: any Sendable, in key: [UInt8], sequence: UInt64) -> Wire.Outcome? {
    withCore { core in
      guard core.host?.allowsRunningAhead == true, let dependencies = core.dependencies,
        let base = core.slots.tip(of: key), var state = base.state.value as? Child.State,
        let action = action as? Child.Action
      else { return nil }
      var runs: [UInt64] = []
      guard
        let outcome = try? reduce(
          &core, &state, at: base.version, action: action, slot: key, with: dependencies, runs: &runs)
      else {
        runner.discard(runs)
        return nil
      }
      core.slots.computedAhead(sequence: sequence, slot: key, outcome: outcome, state: KeptState(state), runs: runs)
      return outcome
    }
  }

  func settle(sequence: UInt64, taken: Bool) {
    settlements.withLock { $0.append(Settlement(sequence: sequence, taken: taken)) }
    // Applied now if `core` is free; if not, its holder applies it when done.
    let discarded = core.withLockIfAvailable(applySettlements) ?? []
    runner.discard(discarded)
  }

  /// Runs `body` on the core, after the settlements that arrived since the last time, and
  /// applies any that arrive meanwhile before letting go.
  private func withCore<Result>(_ body: (inout Core) -> Result) -> Result {
    var discarded: [UInt64] = []
    let result = core.withLock { core in
      discarded += applySettlements(&core)
      let result = body(&core)
      discarded += applySettlements(&core)
      return result
    }
    runner.discard(discarded)
    return result
  }

  /// Applies the pending settlements in order, and returns the effect bodies of outcomes the
  /// host did not take.
  private func applySettlements(_ core: inout Core) -> [UInt64] {
    let pending = settlements.withLock { settlements in
      defer { settlements = [] }
      return settlements
    }
    if pending.isEmpty { return [] }
    var discarded: [UInt64] = []
    for settlement in pending {
      for case let .discard(runs) in core.slots.settled(sequence: settlement.sequence, taken: settlement.taken) {
        discarded += runs
      }
    }
    return discarded
  }

  /// Takes the host's dependencies of `header` for the requests from now on, and for the
  /// effects their reducers create.
  private func adopt(_ header: Wire.DependencyHeader, in core: inout Core) {
    if core.base.context != header.context { core.base.context = header.context }
    let host = HostDependencies(header, boundary: boundary, effects: runner, warned: warned)
    var dependencies = core.base
    dependencies.host = host
    core.dependencies = dependencies
    core.host = host
  }

  private func run(
    _ core: inout Core, slot key: [UInt8], baseVersion: UInt64, patch: StatePatch?, action bytes: [UInt8]
  ) throws -> Wire.Reply {
    guard let dependencies = core.dependencies else {
      throw DistributionError.protocolViolation("the host sent an action before its dependencies")
    }
    core.slots.requested(slot: key, hostVersion: baseVersion)
    guard let slot = try current(&core, slot: key, baseVersion: baseVersion, patch: patch) else {
      return .stale(version: core.slots.slots[key]?.version ?? Wire.emptyVersion)
    }
    guard var state = slot.state.value as? Child.State else {
      throw DistributionError.protocolViolation("the slot keeps a state of another type than \(Child.State.self)")
    }
    var runs: [UInt64] = []
    let outcome = try reduce(
      &core, &state, at: slot.version, action: try actions.decode(bytes), slot: key, with: dependencies,
      runs: &runs)
    core.slots.ran(slot: key, Slot(version: outcome.version, state: KeptState(state)))
    return .ran(outcome)
  }

  /// Runs `action` on `state` with `dependencies`, keeping the effect bodies it returns, and
  /// describes the result.
  private func reduce(
    _ core: inout Core, _ state: inout Child.State, at version: UInt64, action: Child.Action,
    slot: [UInt8], with dependencies: DependencyValues, runs: inout [UInt64]
  ) throws -> Wire.Outcome {
    let before = state
    let effect = DependencyValues.withValues(dependencies) { [child = core.child] in
      child.reduce(into: &state, action: action)
    }
    let patch = try states.patch(before, state)
    let portable = try effect.portable(encode: actions.encode) { body in
      let run = runner.keep(body, encode: actions.encode, slot: slot)
      runs.append(run)
      return run
    }
    return Wire.Outcome(
      baseVersion: version, version: patch == nil ? version : core.slots.newVersion(), patch: patch, effect: portable)
  }

  /// The slot brought to the host's version, or nil when the request is based on another
  /// version than this worker's.
  private func current(
    _ core: inout Core, slot key: [UInt8], baseVersion: UInt64, patch: StatePatch?
  ) throws -> Slot? {
    let existing = baseVersion == Wire.emptyVersion ? nil : core.slots.slots[key]
    guard baseVersion == Wire.emptyVersion || existing?.version == baseVersion else { return nil }
    guard let patch else {
      guard let existing else {
        throw DistributionError.protocolViolation("no state for this slot and no patch with it")
      }
      return existing
    }
    let patched = try states.apply(patch, existing?.state.value as? Child.State)
    return Slot(version: core.slots.newVersion(), state: KeptState(patched))
  }
}

/// A child's state as its server keeps it in its slots: in an existential, so that the slots
/// are of one concrete type, whose code the compiler specializes. Slots of the child's own
/// state type, known only at run time, run unspecialized: a lookup of their types' metadata
/// at almost every step (a quarter of handling a request), where this costs a cast.
private struct KeptState {
  let value: Any

  init(_ value: Any) { self.value = value }
}
