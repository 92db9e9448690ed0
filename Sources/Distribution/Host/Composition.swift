import Bulkhead
import Foundation
package import Transport

/// An app with its boundaries placed: the host's side of a composition. It checks the
/// placement against the app's boundaries before any process starts, starts a worker (or a
/// pool) for every placed boundary, and hands the store a root reducer that sends those
/// boundaries' actions to their workers.
///
/// ```swift
/// let composition = try Composition(
///   root: TwoCounters(), placement: Placement(contentsOf: "two-counters.placement"),
///   command: command)
/// let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
/// ...
/// composition.shutdown()
/// ```
public final class Composition: Sendable {
  /// A placed boundary and the pids of its workers.
  ///
  /// ```swift
  /// composition.processes.map(\.boundary)  // ["counter1", "counter2"]
  /// ```
  public struct Process: Sendable, Equatable {
    /// The boundary's dotted action case path, as the placement names it.
    public let boundary: String
    /// Its workers' pids, by index in its pool.
    public let pids: [Int32]
  }

  /// The placed boundaries this composition's own workers serve (those inside them are
  /// their workers' to place), by path from the app's root.
  private let remotes: [String: RemoteBoundary]
  private let order: [String]
  /// Where the reducer it composes is in the app: empty for a host's, the boundary's path
  /// for a worker's own composition.
  private let prefix: String
  private let directory: SocketDirectory?
  private let roster = WorkerRoster()
  private let templates: TemplateKeeper?
  /// The workers started ahead for boundaries that retire theirs; nil when none draws from it.
  private let warmPool: WarmPool?
  /// Bounds the workers of boundaries placed with limits; nil when none has any.
  private let enforcer: LimitEnforcer?
  /// Each placed boundary's limits, by path.
  let limits: [String: ResourceLimits]

  /// How the workers' limits are enforced; nil when no boundary has limits.
  var limitMechanism: LimitMechanism? { enforcer?.mechanism }
  /// The directories the workers' cgroups are made in, one per hierarchy; none without limits.
  var limitDirectories: [String] { enforcer?.directories ?? [] }
  private let monitor: LivenessMonitor?
  private let control = Locked<ActorListener?>(nil)
  /// The root store, for `./compose.sh send` and `state`, once the host's tools publish it.
  package let liveRoot = LiveRootSlot()
  /// What `timings(of:)` reads; nil when the composition records none.
  let recorder: TimingsRecorder?

  /// How often idle workers are asked whether they still answer.
  static let livenessPeriod = Duration.seconds(1)

  /// Starts the workers of `placement` for `root`'s boundaries. Throws before starting any
  /// process when the placement names boundaries that do not exist, places one twice, or
  /// places one whose state or action cannot be encoded. `instrument` hears of every crossing
  /// and event besides the composition's own timings, which `recordsTimings: false` turns off.
  ///
  /// ```swift
  /// let composition = try Composition(
  ///   root: Guestbook(), placement: Placement(contentsOf: "placements/guestbook.placement"),
  ///   command: .thisExecutable(app: "guestbook"), onEvent: { print($0) })
  /// ```
  public convenience init<Root: Reducer>(
    root: Root, placement: Placement, command: WorkerCommand,
    restartPolicy: RestartPolicy = .standard,
    recordsTimings: Bool = true, instrument: (any BoundaryInstrument)? = nil,
    onEvent: @escaping @Sendable (BoundaryEvent) -> Void = { _ in },
    onOutput: @escaping @Sendable (WorkerOutput) -> Void = { _ in }
  ) throws {
    var checker = BoundaryTypes()
    visitBoundaries(of: root, under: "", with: &checker)
    try placement.validate(against: root.boundaries, uncodable: checker.uncodable)
    try self.init(
      checked: checker, under: "", placement: placement, warmWorkers: placement.warmWorkers, command: command,
      restartPolicy: restartPolicy, recordsTimings: recordsTimings, instrument: instrument, onEvent: onEvent,
      onOutput: onOutput)
  }

  /// The composition a worker of the placed boundary `outer` runs for the boundaries placed
  /// inside it (`inner`, checked by the host), with `child`, the reducer it serves, as its
  /// root: it starts and supervises their workers as a host does. Paths stay the app's, so
  /// that events and workers name `outer.inner`.
  ///
  /// ```swift
  /// let nested = try Composition(nestedIn: "profile", child: Profile(), inner: inner, command: command)
  /// ```
  convenience init<Child: Reducer>(
    nestedIn outer: String, child: Child, inner: InnerPlacement, command: WorkerCommand,
    onEvent: @escaping @Sendable (BoundaryEvent) -> Void = { _ in },
    onOutput: @escaping @Sendable (WorkerOutput) -> Void = { _ in }
  ) throws {
    var checker = BoundaryTypes()
    visitBoundaries(of: child, under: outer, with: &checker)
    try self.init(
      checked: checker, under: outer, placement: inner.placement, warmWorkers: 0, command: command,
      restartPolicy: inner.restartPolicy, recordsTimings: false, instrument: nil, onEvent: onEvent, onOutput: onOutput)
  }

  /// Starts the workers of the entries of `placement` that no other entry holds; each of them
  /// is told at its launch the entries inside its boundary, to place in workers of its own.
  /// Paths are from the app's root; the reducer this composition composes is at `prefix`.
  /// A worker's own composition keeps no warm pool (`warmWorkers` 0): its workers are spawned.
  private init(
    checked checker: BoundaryTypes, under prefix: String, placement: Placement, warmWorkers: Int,
    command: WorkerCommand,
    restartPolicy: RestartPolicy, recordsTimings: Bool, instrument: (any BoundaryInstrument)?,
    onEvent: @escaping @Sendable (BoundaryEvent) -> Void, onOutput: @escaping @Sendable (WorkerOutput) -> Void
  ) throws {
    self.prefix = prefix
    let outermost = placement.entries.filter { entry in
      !placement.entries.contains { entry.path.hasPrefix($0.path + ".") }
    }
    // Detected once, and only when a boundary has limits: without them nothing changes.
    let mechanism = placement.entries.contains { !$0.limits.isEmpty } ? LimitMechanism.detect() : nil
    if let mechanism {
      for entry in placement.entries {
        guard let bytes = entry.memoryLimit, bytes < mechanism.memoryFloor else { continue }
        throw DistributionError.placement(
          file: placement.file, line: entry.line,
          reason: .memoryBelowFloor(path: entry.path, bytes: bytes, floor: mechanism.memoryFloor, mechanism: mechanism.memory))
      }
    }
    try Self.reserveDescriptors(for: outermost, of: placement)
    limits = Dictionary(uniqueKeysWithValues: placement.entries.map { ($0.path, $0.limits) })
    order = outermost.map(\.path)
    let recorder = recordsTimings ? TimingsRecorder(boundaries: order) : nil
    self.recorder = recorder
    let instruments = Instruments(all: [recorder, instrument].compactMap { $0 })
    let onEvent: @Sendable (BoundaryEvent) -> Void = { [report = onEvent] event in
      instruments.eventOccurred(event, at: .now)
      report(event)
    }
    guard !outermost.isEmpty else {
      remotes = [:]
      directory = nil
      monitor = nil
      templates = nil
      enforcer = nil
      warmPool = nil
      return
    }
    let directory = try SocketDirectory.create()
    self.directory = directory
    DirectoriesAtExit.keep(directory)
    let templates = TemplateKeeper(command: command, directory: directory, roster: roster) { line in
      onOutput(WorkerOutput(line, boundary: TemplateKeeper.name))
    }
    self.templates = templates
    let enforcer = mechanism.map(LimitEnforcer.init)
    self.enforcer = enforcer
    // Boundaries with limits of their own start workers under them, which a warm worker,
    // started before it knew its boundary, is not.
    let drawsFromWarmPool: (Placement.Entry) -> Bool = { entry in
      warmWorkers > 0 && command.servesInProcess == nil && entry.limits.isEmpty && checker.servesOneChild(entry.path)
    }
    do {
      warmPool =
        outermost.contains(where: drawsFromWarmPool)
        ? try WarmPool(
          size: warmWorkers, command: command, directory: directory, roster: roster, templates: templates,
          policy: restartPolicy, onEvent: onEvent, onOutput: onOutput)
        : nil
    } catch {
      templates?.close()
      roster.stopAll(grace: .seconds(1))
      directory.remove()
      DirectoriesAtExit.forget(directory)
      throw error
    }
    let warmPool = warmPool
    var remotes: [String: RemoteBoundary] = [:]
    for (number, entry) in outermost.enumerated() {
      let boundary = entry.path
      guard let expected = checker.greetings[boundary] else { continue }
      let plan = WorkerLink.Plan(
        boundary: boundary, expected: expected, command: command, directory: directory, roster: roster,
        templates: templates, deadline: entry.deadline + Self.allowance(inside: boundary, of: placement, for: \.deadline),
        startupDeadline: entry.startupDeadline + Self.allowance(inside: boundary, of: placement, for: \.startupDeadline),
        inner: InnerPlacement(inside: boundary, of: placement, policy: restartPolicy),
        limits: enforcer.map { LimitRequest(enforcer: $0, limits: entry.limits) },
        output: { line in
          // An outer worker's report of its inner workers' events arrives as a marked line.
          if line.stream == .standardError, let event = ReportedEventLine.event(in: line.text) {
            return onEvent(.nested(in: boundary, event: event))
          }
          onOutput(WorkerOutput(line, boundary: boundary))
        }, report: onEvent)
      remotes[boundary] = RemoteBoundary(
        path: boundary, workers: entry.workers, retiresWorkers: checker.servesOneChild(boundary),
        drawsFromWarmPool: drawsFromWarmPool(entry), policy: restartPolicy, report: onEvent, instrument: instruments
      ) { index in
        let link = try warmPool?.claim(plan) ?? WorkerLink(plan, name: "w\(number)-\(index)")
        onEvent(.workerStarted(boundary: boundary, pid: link.pid))
        return link
      }
    }
    self.remotes = remotes
    monitor = LivenessMonitor(boundaries: Array(remotes.values), period: Self.livenessPeriod)
    do {
      for path in order { try remotes[path]?.start() }
    } catch {
      shutdown()
      throw error
    }
  }

  /// The descriptors the host holds for each worker it forks: two sockets (requests, effects),
  /// its console (one socket for its input and output, `WorkerConsole`) and its error pipe,
  /// measured with `bulkhead-benchmark scaling`. No pidfd while it runs: the host reaps it, so
  /// its pid stays its own (`WorkerProcess`). (Its effects connection is read by the shared
  /// `ConnectionWatch`, which needs no descriptor of the worker's own.) A spawned worker, the
  /// fallback when no template forks, holds more (its pidfd, Foundation's own socket for it).
  static let descriptorsPerWorker = 4

  /// Raises the host's descriptor limit to what the workers of `entries` need, or says, at the
  /// largest pool's line, that the hard limit does not allow them: better than a start that
  /// fails halfway with "Bad file descriptor".
  private static func reserveDescriptors(for entries: [Placement.Entry], of placement: Placement) throws(DistributionError) {
    let workers = entries.reduce(0) { $0 + $1.workers }
    // Room beside them for what the composition opens itself (about 30: the template, the
    // socket directory, the control socket, logs) and a fork's passing pair: a start that
    // needs more than the limit surely fails, and one that fits is not refused for less.
    let needed = DescriptorBudget.inUse + workers * descriptorsPerWorker + 64
    let limit = DescriptorBudget.raise(toHold: needed)
    guard limit < needed, let largest = entries.max(by: { $0.workers < $1.workers }) else { return }
    throw .placement(
      file: placement.file, line: largest.line, reason: .tooFewDescriptors(workers: workers, needed: needed, limit: limit))
  }

  /// How much longer than its own deadline the worker of `outer` may take to answer, or to
  /// start, for the boundaries placed inside it (`time`: `\.deadline` or `\.startupDeadline`).
  /// An answer: at each level below, a worker may wait for a stalled one the stalled one's
  /// deadline before it gives it up and starts another, so that the nearest parent gives a
  /// stalled worker up, not a worker further up with all its subtree. A start: a worker greets
  /// the host once the workers placed inside it have started, each within its own start-up.
  static func allowance(
    inside outer: String, of placement: Placement, for time: KeyPath<Placement.Entry, Duration>
  ) -> Duration {
    let inside = placement.entries.filter { $0.path.hasPrefix(outer + ".") }
    let nearest = inside.filter { entry in !inside.contains { entry.path.hasPrefix($0.path + ".") } }
    return nearest.map { $0[keyPath: time] + allowance(inside: $0.path, of: placement, for: time) }.max() ?? .zero
  }

  /// The root reducer to give the store: `root`, with the placed boundaries in workers.
  ///
  /// ```swift
  /// let store = Store(initialState: Guestbook.State()) { composition.compose(Guestbook()) }
  /// ```
  public func compose<Root: Reducer>(_ root: Root) -> _ComposedReducer<Root> {
    _ComposedReducer(base: root, context: boundaryContext)
  }

  /// The core's view of the placed boundaries, for a root reducer to run under.
  package var boundaryContext: BoundaryContext {
    // The core names a boundary from the reducer composed, which is at `prefix` in the app.
    let local = Dictionary(
      uniqueKeysWithValues: remotes.map { path, remote in
        (prefix.isEmpty ? path : String(path.dropFirst(prefix.count + 1)), remote)
      })
    return BoundaryContext(runner: PlacedBoundaries(remotes: local), placed: Array(local.keys))
  }

  /// The placed boundaries whose workers this composition starts, and their pids, in
  /// placement order: a boundary placed inside another is its outer worker's, not listed.
  ///
  /// ```swift
  /// for process in composition.processes { print(process.boundary, process.pids) }
  /// ```
  public var processes: [Process] {
    order.map { Process(boundary: $0, pids: remotes[$0]?.pids ?? []) }
  }

  /// The pid of the worker template that forks this composition's workers (see
  /// `WorkerCommand.executable(_:app:)`); nil when there is none running: the workers are
  /// spawned, or the template has died and the next worker starts another.
  ///
  /// ```swift
  /// if let template = composition.templatePID { print("workers fork from \(template)") }
  /// ```
  package var templatePID: Int32? { templates?.pid }

  /// The pids of the idle workers of the warm pool, oldest first: empty when it has none.
  package var warmPIDs: [Int32] { warmPool?.idlePIDs ?? [] }

  /// Waits until the warm pool holds every idle worker it keeps (or has given up), at most
  /// `timeout`: for tests and benchmarks that present a child once the pool has refilled.
  /// Whether it did; true at once without a pool.
  package func waitForWarmPool(timeout: Duration = .seconds(10)) -> Bool {
    warmPool?.waitUntilSettled(timeout: timeout) ?? true
  }

  /// Waits until worker `pid` of this composition, which it let go (retired, given up, or
  /// unclaimed at shutdown), has ended and the host holds nothing of it: exited and reaped,
  /// its output read to its end, its pipes and pidfds closed (a pidfd says the process has
  /// gone a little before those are). At most `timeout`; whether it has. For tests that count
  /// the host's descriptors.
  package func waitUntilEnded(worker pid: Int32, timeout: Duration = .seconds(10)) -> Bool {
    roster.waitUntilEnded(pid, milliseconds: timeout.wholeMilliseconds)
  }

  /// The private directory that holds the workers' sockets while they start; nil when every
  /// boundary is in the host.
  package var socketDirectory: String? { directory?.path }

  /// What has crossed `boundary` so far; nil when no worker of this composition serves it (it
  /// is in the host, or placed inside another placed boundary, whose worker counts it).
  ///
  /// ```swift
  /// #expect(composition.statistics(of: "composer")?.actions == 1)
  /// ```
  public func statistics(of boundary: String) -> BoundaryStatistics? {
    remotes[boundary]?.statistics
  }

  /// Kills one worker of `boundary` with SIGKILL, as a crash would: for the study and the
  /// fault tests (from outside, `./compose.sh kill APP BOUNDARY`).
  package func killWorker(of boundary: String, index: Int = 0) {
    remotes[boundary]?.kill(worker: index)
  }

  /// Moves placed `boundary` to `residence` while the composition runs, and returns how long
  /// the move took; `onEvent` hears `.moved` too. No action is lost or run twice: one that
  /// comes during the move waits, then runs once, where the boundary now is.
  ///
  /// - To the host: the host's copy of the child state is already the whole truth, so the
  ///   move takes microseconds. The workers are let go; each goes on running the effects it
  ///   runs until they end, their actions entering at the root as before (and reduced in the
  ///   host now), and then retires.
  /// - To workers: a fresh worker starts at every place of the pool and gets the host's copy
  ///   of the state with its first action, as after a restart. Effects already running in the
  ///   host go on there. A boundary that draws from the warm pool starts no worker: the next
  ///   action that reaches it claims a warm one, so the move takes microseconds too.
  ///
  /// ```swift
  /// let took = try composition.move("counter1", to: .host)
  /// store.send(.counter1(.incrementButtonTapped))  // runs in the host
  /// _ = try composition.move("counter1", to: .worker)
  /// ```
  ///
  /// - Throws: `MoveRefusal` for a boundary the placement does not put in this composition's
  ///   workers, one placed inside another or holding placed ones, one already there, one
  ///   that failed, or after shutdown. Nothing changed then.
  public func move(_ boundary: String, to residence: Residence) throws(MoveRefusal) -> Duration {
    guard let remote = remotes[boundary] else {
      if limits[boundary] != nil, let outer = order.first(where: { boundary.hasPrefix($0 + ".") }) {
        throw .insidePlacedBoundary(boundary: boundary, outer: outer)
      }
      throw .notPlaced(boundary: boundary, placed: order)
    }
    let inner = limits.keys.filter { $0.hasPrefix(boundary + ".") }.sorted()
    guard inner.isEmpty else { throw .holdsPlacedBoundaries(boundary: boundary, inner: inner) }
    return try remote.move(to: residence)
  }

  /// Where placed `boundary`'s child runs now; nil for a boundary this composition's workers
  /// do not serve.
  ///
  /// ```swift
  /// composition.residence(of: "counter1")  // .worker, as placed
  /// ```
  public func residence(of boundary: String) -> Residence? {
    remotes[boundary]?.residence
  }

  /// The host's side of placed boundary `path`, for the control endpoint.
  func remote(_ path: String) -> RemoteBoundary? { remotes[path] }

  /// Starts the composition's control endpoint (`CompositionControl`) on a socket in its
  /// directory, which only processes of the same user may reach, and returns the socket's path.
  /// Started once; later calls return the same path. One thread serves every connection,
  /// within `limits`; what it refuses or closes on its own goes to `onEvent`. `onDown` runs
  /// when a client asks the composition to go down (`./compose.sh down`).
  package func startControl(
    limits: ActorListener.Limits = .standard, onEvent: @escaping @Sendable (ListenerEvent) -> Void = { _ in },
    onDown: @escaping @Sendable () -> Void = {}
  ) throws -> String {
    guard let directory else {
      throw DistributionError.usage("a composition with nothing placed has no workers to control")
    }
    return try control.withLock { control in
      if let control { return control.path }
      let composition = WeakBox<Composition>()
      composition.value = self
      let listener = try ActorListener(path: directory.path(for: "control"), limits: limits, onEvent: onEvent) { system in
        _ = system.hosting(CompositionControl.id) { CompositionControl(composition: composition, onDown: onDown, actorSystem: $0) }
      }
      control = listener
      return listener.path
    }
  }

  /// Stops every worker and removes the socket directory, within about two seconds whatever
  /// the workers do: a worker that has not exited a second after its input closed is killed.
  /// Actions sent afterwards to a placed boundary change nothing.
  ///
  /// ```swift
  /// defer { composition.shutdown() }
  /// ```
  public func shutdown() {
    control.withLock { $0 }?.stop()
    monitor?.stop()
    for remote in remotes.values { remote.stop() }
    warmPool?.close()
    templates?.close()
    roster.stopAll(grace: .seconds(1))
    // Each worker's cgroup went with it; the host's own directory goes last.
    enforcer?.close()
    if let directory {
      directory.remove()
      DirectoriesAtExit.forget(directory)
    }
  }
}

/// Notes what a worker for each boundary must say it serves, the boundaries whose child
/// state or action is not `Codable`, and the kind of each.
private struct BoundaryTypes: BoundaryVisitor {
  var greetings: [String: Wire.Greeting] = [:]
  var uncodable: [String: String] = [:]
  var kinds: [String: BoundaryDescription.Kind] = [:]

  mutating func visit<Child: Reducer>(
    _ child: Child, at path: String, kind: BoundaryDescription.Kind
  ) {
    greetings[path] = Wire.Greeting(boundary: path, child: Child.self)
    kinds[path] = kind
    if ValueCoding(Child.State.self) == nil {
      uncodable[path] = String(reflecting: Child.State.self)
    } else if ValueCoding(Child.Action.self) == nil {
      uncodable[path] = String(reflecting: Child.Action.self)
    }
  }

  /// Whether the workers of `path` serve a single optional child, so that they can be retired
  /// with it: an `ifLet` or `ifCaseLet` that is not inside a `forEach`, whose elements would
  /// share it.
  func servesOneChild(_ path: String) -> Bool {
    (kinds[path] == .ifLet || kinds[path] == .ifCaseLet)
      && !kinds.contains { $0.value == .forEach && path.hasPrefix($0.key + ".") }
  }
}
