/// What has crossed one placed boundary: for people studying boundaries, and for the
/// benchmark.
///
/// ```swift
/// composition.statistics(of: "counter1")?.actions  // 4
/// ```
public struct BoundaryStatistics: Sendable, Equatable {
  /// Actions sent to the boundary's workers and answered.
  public var actions = 0
  /// Payload bytes of the host's requests, and of the workers' replies.
  public var bytesSent = 0
  public var bytesReceived = 0
  /// Patches the host sent because its own reducers had changed the child state.
  public var hostPatches = 0
  /// Patches the workers sent back, and the size of the last one's changed bytes.
  public var workerPatches = 0
  public var lastWorkerPatchBytes = 0
  /// Actions sent by the workers' effects whose outcome the worker had computed already and
  /// the host took, without a request: a round trip saved each.
  public var precomputedActions = 0
  /// Workers that died, stalled or misbehaved, and starts that failed.
  public var failures = 0
  /// Of those, workers that did not answer within the boundary's deadline.
  public var stalls = 0
  /// Workers let go with their `ifLet` child, and element states a `forEach` worker forgot
  /// because the element was removed.
  public var workersRetired = 0
  public var slotsDropped = 0

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
