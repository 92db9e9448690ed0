/// What a composition's host tells an instrument about its boundaries as they work: each remote
/// action's round trip, each effect action that arrives from a worker, and each event (starts,
/// restarts, stalls, effects lost). Every method has an empty default, so an instrument
/// implements only what it needs; the host calls them on the thread where the thing happened,
/// so they must be quick and must not block.
///
/// The composition's timings (`Composition.timings(of:)`) and the trace (`TraceWriter`) are two
/// instruments; a composition takes one more of your own:
///
/// ```swift
/// struct SlowActions: BoundaryInstrument {
///   func remoteActionAnswered(_ trip: RemoteActionTrip) {
///     if trip.nanoseconds > 1_000_000 { print("\(trip.boundary): \(trip.nanoseconds) ns") }
///   }
/// }
/// let composition = try Composition(root: App(), placement: placement, command: command, instrument: SlowActions())
/// ```
public protocol BoundaryInstrument: Sendable {
  /// A worker answered a remote action: called after the reply arrived, before the host
  /// applies it.
  func remoteActionAnswered(_ trip: RemoteActionTrip)
  /// The host has processed an action that a worker's effect sent.
  func effectActionProcessed(_ action: EffectActionTrip)
  /// `event` happened at `instant`.
  func eventOccurred(_ event: BoundaryEvent, at instant: MonotonicInstant)
  /// An action of `boundary`'s child ran in the host's own process, after the boundary was
  /// moved there, for `nanoseconds` up to `end`.
  func actionRanInHost(boundary: String, nanoseconds: UInt64, at end: MonotonicInstant)
  /// Whether the trips should name their actions, which costs a description of each: false
  /// unless an instrument says otherwise.
  var wantsActionNames: Bool { get }
}

/// Nothing: an instrument implements only what it needs.
extension BoundaryInstrument {
  /// Does nothing with `trip`.
  public func remoteActionAnswered(_ trip: RemoteActionTrip) {}
  /// Does nothing with `action`.
  public func effectActionProcessed(_ action: EffectActionTrip) {}
  /// Does nothing with `event`.
  public func eventOccurred(_ event: BoundaryEvent, at instant: MonotonicInstant) {}
  /// Does nothing with the action run in the host.
  public func actionRanInHost(boundary: String, nanoseconds: UInt64, at end: MonotonicInstant) {}
  /// False: the trips leave their actions unnamed.
  public var wantsActionNames: Bool { false }
}

/// One remote action, from the host's request to the worker's reply.
///
/// ```swift
/// trip.nanoseconds - trip.workerNanoseconds  // what the crossing itself cost
/// ```
public struct RemoteActionTrip: Sendable, Equatable {
  /// The boundary's dotted action case path.
  public let boundary: String
  /// The child action, described, if an instrument asked for names (`wantsActionNames`).
  public let action: String?
  /// The worker's index in the boundary's pool.
  public let worker: Int
  /// The worker's pid.
  public let pid: Int32
  /// When the host started the request.
  public let start: MonotonicInstant
  /// When the reply had arrived.
  public let end: MonotonicInstant
  /// How long the worker took to handle the request (bring its copy up to date, run the
  /// reducer, describe the change), by its own clock: sent back with its reply.
  public let workerNanoseconds: UInt64
  /// Payload bytes of the request.
  public let bytesSent: Int
  /// Payload bytes of the reply.
  public let bytesReceived: Int
  /// The changed bytes of the host's patch (the host's reducers had changed the child); nil
  /// when there was none.
  public let hostPatchBytes: Int?
  /// The changed bytes of the worker's patch; nil when the action changed nothing.
  public let workerPatchBytes: Int?

  /// The round trip, in nanoseconds.
  public var nanoseconds: UInt64 { end.nanoseconds(since: start) }
}

/// One action sent by a worker's effect, from its arrival at the host to the host having
/// processed it (reduced it, through the boundary again unless it took the worker's
/// precomputed outcome); the worker's effect waits that long to hear it was processed.
///
/// ```swift
/// func effectActionProcessed(_ action: EffectActionTrip) {
///   if !action.tookOutcome { print("\(action.boundary): a round trip for \(action.bytes) bytes") }
/// }
/// ```
public struct EffectActionTrip: Sendable, Equatable {
  /// The boundary's dotted action case path.
  public let boundary: String
  /// The action, described, if an instrument asked for names (`wantsActionNames`).
  public let action: String?
  /// The sending worker's index in the boundary's pool.
  public let worker: Int
  /// The sending worker's pid.
  public let pid: Int32
  /// When the action arrived at the host.
  public let arrived: MonotonicInstant
  /// When the host had processed it.
  public let processed: MonotonicInstant
  /// The encoded action's bytes.
  public let bytes: Int
  /// Whether the host took the outcome the worker had computed ahead, saving a round trip.
  public let tookOutcome: Bool
  /// The changed bytes of the patch that outcome carried, when the host took one with a patch.
  public var patchBytes: Int? = nil

  /// From arrival to processed, in nanoseconds.
  public var nanoseconds: UInt64 { processed.nanoseconds(since: arrived) }
}

/// Several instruments as one: each hears everything, in order.
struct Instruments: BoundaryInstrument {
  let all: [any BoundaryInstrument]
  let wantsActionNames: Bool

  init(all: [any BoundaryInstrument]) {
    self.all = all
    wantsActionNames = all.contains { $0.wantsActionNames }
  }

  func remoteActionAnswered(_ trip: RemoteActionTrip) {
    for instrument in all { instrument.remoteActionAnswered(trip) }
  }

  func effectActionProcessed(_ action: EffectActionTrip) {
    for instrument in all { instrument.effectActionProcessed(action) }
  }

  func eventOccurred(_ event: BoundaryEvent, at instant: MonotonicInstant) {
    for instrument in all { instrument.eventOccurred(event, at: instant) }
  }

  func actionRanInHost(boundary: String, nanoseconds: UInt64, at end: MonotonicInstant) {
    for instrument in all { instrument.actionRanInHost(boundary: boundary, nanoseconds: nanoseconds, at: end) }
  }
}
