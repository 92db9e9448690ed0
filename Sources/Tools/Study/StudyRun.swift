import Bulkhead
import BulkheadDistribution

/// One run of an app's script in a study: where its boundaries ran, the fault injected if any,
/// and what was measured.
public struct StudyRun: Sendable {
  /// A fault the study injects into a boundary's worker halfway through the script.
  public enum Fault: Sendable, Equatable, CustomStringConvertible {
    /// SIGKILL, as a crash would.
    case kill(boundary: String)
    /// SIGSTOP: the worker stops answering, as a hung one would.
    case stall(boundary: String)

    public var boundary: String {
      switch self {
      case let .kill(boundary), let .stall(boundary): boundary
      }
    }

    public var description: String {
      switch self {
      case let .kill(boundary): "kill \(boundary)"
      case let .stall(boundary): "stall \(boundary)"
      }
    }
  }

  /// Something that happened during the run, at `offset` from its start.
  public struct Moment: Sendable, Equatable {
    public enum Kind: String, Sendable {
      case fault, stall, exit, restart, effectsLost = "effects lost", failure
    }

    public let offset: Duration
    public let kind: Kind
    public let text: String
  }

  /// "in the host", or the boundaries placed in workers.
  public let placement: String
  /// The boundaries in workers; empty when everything ran in the host.
  public let placed: [String]
  public let fault: Fault?
  /// How long each action of the root reducer took, in the order they ran, and when each
  /// started, from the start of the run.
  public internal(set) var latencies: [Duration] = []
  public internal(set) var starts: [Duration] = []
  /// The host's CPU time, all threads, while the root reducer ran.
  public internal(set) var hostCPU: Duration = .zero
  /// Payload bytes that crossed the boundaries, both ways.
  public internal(set) var bytesCrossed = 0
  public internal(set) var moments: [Moment] = []
  /// Actions during which a worker was restarted: each was then run by the new worker.
  public internal(set) var actionsDelayedByRestart = 0
  /// Whether the fault found no worker running to hit (an `ifLet` child that was absent).
  public internal(set) var faultHitNothing = false
  /// How long the run took.
  public internal(set) var duration: Duration = .zero

  public var actions: Int { latencies.count }

  public var restarts: Int { moments.count { $0.kind == .restart } }

  public var effectsLost: Int {
    moments.reduce(0) { total, moment in
      guard moment.kind == .effectsLost else { return total }
      return total + (Int(moment.text.prefix { $0.isNumber }) ?? 0)
    }
  }

  /// From the fault to the first restart after it; nil without a fault or a restart.
  public var recovery: Duration? {
    guard let fault = moments.first(where: { $0.kind == .fault }),
      let restart = moments.first(where: { $0.kind == .restart && $0.offset >= fault.offset })
    else { return nil }
    return restart.offset - fault.offset
  }

  /// The latency below which `fraction` of the actions fell (0.5 for the median).
  public func latency(percentile fraction: Double) -> Duration {
    guard !latencies.isEmpty else { return .zero }
    let sorted = latencies.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
  }

  public var hostCPUPerAction: Duration { actions == 0 ? .zero : hostCPU / actions }

  public var bytesPerAction: Double { actions == 0 ? 0 : Double(bytesCrossed) / Double(actions) }
}
