/// A worker's copies of one boundary's child states, one per slot, and the outcomes of effect
/// actions it computed ahead of the host, as a value: which outcome the host took, which
/// states stand, and which effect bodies to drop. It takes events — an outcome computed ahead,
/// the host's word on one, a request for a slot — and returns the commands that follow. It
/// runs no reducer and holds no lock: `ChildServer` runs the reducer and keeps it under its
/// lock.
///
/// Every state a worker makes gets a new version, so the host can tell by a version alone
/// whether an outcome computed ahead starts from its copy.
struct WorkerSlots<State> {
  /// The state of one slot, at `version`.
  struct Slot {
    var version: UInt64
    var state: State
  }

  /// An effect action run ahead of the host: its result stands in for the slot once the host
  /// takes it, and its effect bodies are dropped if the host does not.
  struct Tentative {
    let slot: [UInt8]
    let outcome: Wire.Outcome
    let state: State
    let runs: [UInt64]
    /// Whether the slot still waits to hear which state is the host's.
    var isOpen = true
  }

  /// What happened.
  enum Event {
    /// Effect action `sequence` ran ahead on the tip of `slot`, giving `outcome` and `state`;
    /// the effect bodies it returned are kept as `runs`.
    case computedAhead(sequence: UInt64, slot: [UInt8], outcome: Wire.Outcome, state: State, runs: [UInt64])
    /// The host processed effect action `sequence`, and took its outcome or not.
    case settled(sequence: UInt64, taken: Bool)
    /// A request for `slot` arrived from a host whose copy is at `hostVersion` (nil: it has
    /// none). It says which of the slot's open tentative outcomes the host took last; none of
    /// them can be taken after a request.
    case requested(slot: [UInt8], hostVersion: UInt64?)
    /// A request ran: `slot` is now `Slot`.
    case ran(slot: [UInt8], Slot)
    /// The host dropped `slot`.
    case dropped(slot: [UInt8])
  }

  /// What to do.
  enum Command: Equatable, Sendable {
    /// Forget these kept effect bodies: their outcome was not taken, so the host never starts them.
    case discard([UInt64])
  }

  private(set) var slots: [[UInt8]: Slot] = [:]
  private(set) var tentative: [UInt64: Tentative] = [:]
  /// The open tentative outcomes of each slot, by sequence, in the order they were computed:
  /// each starts from the state the one before it left, so a stream of effect actions is
  /// computed ahead one after another while the host catches up.
  private(set) var open: [[UInt8]: [UInt64]] = [:]
  /// The last version this worker gave a state.
  private(set) var lastVersion = Wire.emptyVersion

  /// A version no state of this worker had before.
  mutating func newVersion() -> UInt64 {
    lastVersion += 1
    return lastVersion
  }

  /// Where the next outcome computed ahead for `key` starts: the state the last open one left,
  /// or the slot's.
  func tip(of key: [UInt8]) -> Slot? {
    guard let last = open[key]?.last, let tentative = tentative[last] else { return slots[key] }
    return Slot(version: tentative.outcome.version, state: tentative.state)
  }

  mutating func handle(_ event: Event) -> [Command] {
    switch event {
    case let .computedAhead(sequence, key, outcome, state, runs):
      computedAhead(sequence: sequence, slot: key, outcome: outcome, state: state, runs: runs)
      return []
    case let .settled(sequence, taken):
      return settled(sequence: sequence, taken: taken)
    case let .requested(key, hostVersion):
      requested(slot: key, hostVersion: hostVersion)
      return []
    case let .ran(key, slot):
      ran(slot: key, slot)
      return []
    case let .dropped(key):
      dropped(slot: key)
      return []
    }
  }

  // Every event is also a method, which the server calls: it runs unspecialized for its
  // child's state, where making an `Event` (and the empty `[Command]` most return) costs
  // lookups of their types' metadata each time.

  /// `.requested`: closes the slot's open tentative outcomes.
  mutating func requested(slot key: [UInt8], hostVersion: UInt64?) {
    close(key, hostVersion: hostVersion)
  }

  /// `.ran`: the slot is `slot` now.
  mutating func ran(slot key: [UInt8], _ slot: Slot) {
    slots[key] = slot
  }

  /// `.dropped`: forgets the slot and closes its open tentative outcomes.
  mutating func dropped(slot key: [UInt8]) {
    close(key, hostVersion: nil)
    slots[key] = nil
  }

  /// `.computedAhead`: keeps the outcome, open, at the end of its slot's chain.
  mutating func computedAhead(sequence: UInt64, slot key: [UInt8], outcome: Wire.Outcome, state: State, runs: [UInt64]) {
    tentative[sequence] = Tentative(slot: key, outcome: outcome, state: state, runs: runs)
    open[key, default: []].append(sequence)
  }

  /// `.settled`: applies the host's word on `sequence`. A word on one that is gone (a second
  /// word on the same action) changes nothing.
  mutating func settled(sequence: UInt64, taken: Bool) -> [Command] {
    guard let settled = tentative.removeValue(forKey: sequence) else { return [] }
    if settled.isOpen, var chain = open.removeValue(forKey: settled.slot), let position = chain.firstIndex(of: sequence) {
      if taken {
        // Those before it were taken too (it started from their state), even if the word of
        // it comes later: two effects' acknowledgements can cross.
        for earlier in chain[..<position] { tentative[earlier]?.isOpen = false }
        chain.removeSubrange(...position)
      } else {
        // The ones computed after it started from its state, which the host's copy never
        // became: the host asks for their actions instead.
        for later in chain[(position + 1)...] { tentative[later]?.isOpen = false }
        chain.removeSubrange(position...)
      }
      if !chain.isEmpty { open[settled.slot] = chain }
    }
    // Versions only grow, so a taken outcome newer than the slot is the host's copy now,
    // whether its word came in order or not. A slot dropped meanwhile stays dropped.
    if taken, let slot = slots[settled.slot], settled.outcome.version > slot.version {
      slots[settled.slot] = Slot(version: settled.outcome.version, state: settled.state)
    }
    return taken || settled.runs.isEmpty ? [] : [.discard(settled.runs)]
  }

  /// Closes the open tentative outcomes of `key`: the one at `hostVersion`, if any, is the
  /// host's copy now. Their effect bodies wait for the host's word in `settled`.
  private mutating func close(_ key: [UInt8], hostVersion: UInt64?) {
    // Most requests find nothing open: no lookup then.
    if open.isEmpty { return }
    for sequence in open.removeValue(forKey: key) ?? [] {
      guard let closed = tentative[sequence] else { continue }
      tentative[sequence]?.isOpen = false
      if hostVersion == closed.outcome.version {
        slots[key] = Slot(version: closed.outcome.version, state: closed.state)
      }
    }
  }
}

// Sendable when the state is, as in the tests' tables; a server keeps it under its lock.
extension WorkerSlots: Sendable where State: Sendable {}
extension WorkerSlots.Slot: Sendable where State: Sendable {}
extension WorkerSlots.Tentative: Sendable where State: Sendable {}
extension WorkerSlots.Event: Sendable where State: Sendable {}
extension WorkerSlots.Slot: Equatable where State: Equatable {}
extension WorkerSlots.Tentative: Equatable where State: Equatable {}
