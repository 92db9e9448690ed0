/// What has crossed one placed boundary: for people studying boundaries, and for the
/// benchmark.
///
/// ```swift
/// composition.statistics(of: "counter1")?.actions  // 4
/// ```
public struct BoundaryStatistics: Sendable, Equatable {
  /// Actions sent to the boundary's workers and answered.
  public internal(set) var actions = 0
  /// Payload bytes of the host's requests.
  public internal(set) var bytesSent = 0
  /// Payload bytes of the workers' replies, and of the actions their effects sent.
  public internal(set) var bytesReceived = 0
  /// Actions the workers' effects sent that the host processed, whether it then asked the
  /// worker to run them (a round trip, counted in `actions`) or took the outcome the worker
  /// had computed ahead (`precomputedActions`).
  public internal(set) var effectActions = 0
  /// Patches the host sent because its own reducers had changed the child state.
  public internal(set) var hostPatches = 0
  /// Patches the workers sent back.
  public internal(set) var workerPatches = 0
  /// The changed bytes of the last patch a worker sent back.
  public internal(set) var lastWorkerPatchBytes = 0
  /// Actions sent by the workers' effects whose outcome the worker had computed already and
  /// the host took, without a request: a round trip saved each.
  public internal(set) var precomputedActions = 0
  /// Workers that died, stalled or misbehaved, and starts that failed.
  public internal(set) var failures = 0
  /// Of those, workers that did not answer within the boundary's deadline.
  public internal(set) var stalls = 0
  /// Workers let go with their `ifLet` child.
  public internal(set) var workersRetired = 0
  /// Element states a `forEach` worker forgot because the element was removed.
  public internal(set) var slotsDropped = 0

  /// An action a worker's effect sent, `bytes` encoded, which the host has processed.
  mutating func recordEffectAction(bytes: Int) {
    effectActions += 1
    bytesReceived += bytes
  }

  mutating func recordPrecomputed(workerPatch: StatePatch?) {
    precomputedActions += 1
    record(sent: 0, received: 0, hostPatch: nil, workerPatch: workerPatch)
  }

  mutating func record(sent: Int, received: Int, hostPatch: StatePatch?, workerPatch: StatePatch?) {
    actions += 1
    bytesSent += sent
    bytesReceived += received
    if hostPatch != nil { hostPatches += 1 }
    if let workerPatch {
      workerPatches += 1
      lastWorkerPatchBytes = workerPatch.byteCount
    }
  }
}

extension Wire.Reply {
  var patch: StatePatch? {
    if case let .ran(outcome) = self { outcome.patch } else { nil }
  }
}
