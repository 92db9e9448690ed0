import Bulkhead
import BulkheadDistribution

/// One run of an app's script in a study: where its boundaries ran, the fault injected if any,
/// and what was measured.
package struct StudyRun: Sendable {
  /// A fault the study injects into a boundary's worker at one action of the script.
  package enum Fault: Sendable, Equatable, CustomStringConvertible {
    /// SIGKILL, as a crash would.
    case kill(boundary: String)
    /// SIGSTOP: the worker stops answering, as a hung one would.
    case stall(boundary: String)

    package var boundary: String {
      switch self {
      case let .kill(boundary), let .stall(boundary): boundary
      }
    }

    package var description: String {
      switch self {
      case let .kill(boundary): "kill \(boundary)"
      case let .stall(boundary): "stall \(boundary)"
      }
    }
  }

  /// Something that happened during the run, at `offset` from its start.
  package struct Moment: Sendable, Equatable {
    package enum Kind: String, Sendable {
      case fault, stall, exit, restart, effectsLost = "effects lost", failure, limit
    }

    package let offset: Duration
    package let kind: Kind
    package let text: String
  }

  /// "in the host", or the boundaries placed in workers.
  package let placement: String
  /// The boundaries in workers; empty when everything ran in the host.
  package let placed: [String]
  package let fault: Fault?
  /// The action of the script the fault landed on, counted from 1.
  package let faultAction: Int?
  /// The index in its boundary's pool of the worker the fault hit; nil when it hit none.
  package internal(set) var faultedWorker: Int?
  /// How long each action of the root reducer took, in the order they ran, and when each
  /// started, from the start of the run.
  package internal(set) var latencies: [Duration] = []
  package internal(set) var starts: [Duration] = []
  /// The host's CPU time, all threads, while the root reducer ran.
  package internal(set) var hostCPU: Duration = .zero
  /// Payload bytes that crossed the boundaries, both ways.
  package internal(set) var bytesCrossed = 0
  package internal(set) var moments: [Moment] = []
  /// Actions during which a worker was restarted: each was then run by the new worker.
  package internal(set) var actionsDelayedByRestart = 0
  /// Whether the fault found no worker running to hit (an `ifLet` child that was absent).
  package internal(set) var faultHitNothing = false
  /// How long the run took.
  package internal(set) var duration: Duration = .zero

  package var actions: Int { latencies.count }

  package var restarts: Int { moments.count { $0.kind == .restart } }

  package var effectsLost: Int {
    moments.reduce(0) { total, moment in
      guard moment.kind == .effectsLost else { return total }
      return total + (Int(moment.text.prefix { $0.isNumber }) ?? 0)
    }
  }

  /// From the fault to the first restart after it; nil without a fault or a restart.
  package var recovery: Duration? {
    guard let fault = moments.first(where: { $0.kind == .fault }),
      let restart = moments.first(where: { $0.kind == .restart && $0.offset >= fault.offset })
    else { return nil }
    return restart.offset - fault.offset
  }

  /// The latency below which `fraction` of the actions fell (0.5 for the median).
  package func latency(percentile fraction: Double) -> Duration {
    guard !latencies.isEmpty else { return .zero }
    let sorted = latencies.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
  }

  package var hostCPUPerAction: Duration { actions == 0 ? .zero : hostCPU / actions }

  package var bytesPerAction: Double { actions == 0 ? 0 : Double(bytesCrossed) / Double(actions) }
}
