import Synchronization

/// How long crossing one placed boundary took, and what went wrong on the way: latency
/// histograms of its remote actions and of the actions its workers' effects sent, the workers'
/// own handling time, bytes each way, patch sizes, restarts, stalls and effects lost.
///
/// ```swift
/// let timings = composition.timings(of: "counter1")!
/// timings.remoteActions.percentile(0.99)  // nanoseconds, request to reply
/// ```
public struct BoundaryTimings: Sendable, Equatable {
  /// Round trips of remote actions, in nanoseconds: request sent to reply read.
  public internal(set) var remoteActions = LogHistogram()
  /// The workers' time handling those requests, in nanoseconds, by their own clocks.
  public internal(set) var workerHandling = LogHistogram()
  /// Actions of the workers' effects, in nanoseconds from arrival to processed by the host.
  public internal(set) var effectActions = LogHistogram()
  /// Of those, the ones whose outcome the worker had computed ahead and the host took.
  public internal(set) var precomputedEffectActions = 0
  /// Payload bytes of the requests.
  public internal(set) var bytesSent = 0
  /// Payload bytes of the replies, and of the actions the workers' effects sent.
  public internal(set) var bytesReceived = 0
  /// Changed bytes of each patch the host sent (its own reducers had changed the child).
  public internal(set) var hostPatchBytes = LogHistogram()
  /// Changed bytes of each patch a worker sent back.
  public internal(set) var workerPatchBytes = LogHistogram()
  /// Workers started again after a crash, stall or fault.
  public internal(set) var restarts = 0
  /// Workers that did not answer within the boundary's deadline.
  public internal(set) var stalls = 0
  /// Effects that were running in a worker when it died.
  public internal(set) var effectsLost = 0
  /// Actions of the child run in the host's own process, after the boundary was moved there
  /// (`Composition.move`), in nanoseconds.
  public internal(set) var hostActions = LogHistogram()
  /// Round trips and actions run in the host, over the last few seconds since the last move.
  package internal(set) var recent = RecentLatency()

  init() {}

  mutating func record(_ trip: RemoteActionTrip) {
    remoteActions.record(trip.nanoseconds)
    recent.record(trip.nanoseconds, at: trip.end)
    workerHandling.record(trip.workerNanoseconds)
    bytesSent += trip.bytesSent
    bytesReceived += trip.bytesReceived
    if let bytes = trip.hostPatchBytes { hostPatchBytes.record(UInt64(bytes)) }
    if let bytes = trip.workerPatchBytes { workerPatchBytes.record(UInt64(bytes)) }
  }

  /// An action of the child that ran in the host for `nanoseconds`, ending at `end`.
  mutating func recordInHost(_ nanoseconds: UInt64, at end: MonotonicInstant) {
    hostActions.record(nanoseconds)
    recent.record(nanoseconds, at: end)
  }

  mutating func record(_ action: EffectActionTrip) {
    effectActions.record(action.nanoseconds)
    bytesReceived += action.bytes
    if action.tookOutcome { precomputedEffectActions += 1 }
    // As `BoundaryStatistics` counts them: a taken outcome's patch is a worker's patch too.
    if let bytes = action.patchBytes { workerPatchBytes.record(UInt64(bytes)) }
  }

  mutating func record(_ event: BoundaryEvent) {
    switch event {
    case .workerRestarted: restarts += 1
    case .workerStalled: stalls += 1
    case let .effectsLost(_, count): effectsLost += count
    // An inner worker's event is its parent worker's business, not a crossing of this boundary.
    // The recent window shows where the boundary runs now: the runs before a move were timed
    // somewhere else, and would blur the change for seconds.
    case .moved: recent = RecentLatency()
    case .workerStarted, .workerExited, .workerRetired, .connectionRefused, .boundaryFailed, .actionFailed, .limitExceeded,
      .nested:
      break
    }
  }
}

/// The instrument behind `Composition.timings(of:)`: one `BoundaryTimings` per boundary, kept
/// under one lock that each record holds for a few increments.
final class TimingsRecorder: BoundaryInstrument {
  private let timings: Mutex<[String: BoundaryTimings]>

  init(boundaries: [String]) {
    timings = Mutex(Dictionary(uniqueKeysWithValues: boundaries.map { ($0, BoundaryTimings()) }))
  }

  /// What has been recorded for `boundary`; nil when it is not placed.
  func timings(of boundary: String) -> BoundaryTimings? {
    timings.withLock { $0[boundary] }
  }

  func remoteActionAnswered(_ trip: RemoteActionTrip) {
    update(trip.boundary) { $0.record(trip) }
  }

  func effectActionProcessed(_ action: EffectActionTrip) {
    update(action.boundary) { $0.record(action) }
  }

  func actionRanInHost(boundary: String, nanoseconds: UInt64, at end: MonotonicInstant) {
    update(boundary) { $0.recordInHost(nanoseconds, at: end) }
  }

  func eventOccurred(_ event: BoundaryEvent, at _: MonotonicInstant) {
    update(event.boundary) { $0.record(event) }
  }

  /// Changes `boundary`'s timings in place, through the dictionary's values: changed through
  /// `timings[boundary]?`, they were copied out and back, and their histograms' buckets with
  /// them, on every crossing.
  private func update(_ boundary: String, _ change: (inout BoundaryTimings) -> Void) {
    timings.withLock { timings in
      guard let index = timings.index(forKey: boundary) else { return }
      change(&timings.values[index])
    }
  }
}
