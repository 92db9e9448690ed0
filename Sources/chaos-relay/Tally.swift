import Synchronization

/// One direction of one connection through the relay (a lane), numbered for its generator.
struct Lane: Sendable, Hashable, CustomStringConvertible {
  enum Connection: String, Sendable { case control, effects }
  enum Direction: String, Sendable {
    case toWorker = "host→worker"
    case toHost = "worker→host"
  }

  let connection: Connection
  let direction: Direction

  /// 0…3, distinct for each lane: mixed into the seed.
  var number: UInt64 {
    (connection == .control ? 0 : 2) + (direction == .toWorker ? 0 : 1)
  }

  var description: String { "\(connection.rawValue) \(direction.rawValue)" }

  /// The name `--lanes` takes: `effects-to-host`, say.
  var name: String { "\(connection.rawValue)-to-\(direction == .toWorker ? "worker" : "host")" }

  static let all = [Connection.control, .effects].flatMap { connection in
    [Direction.toWorker, .toHost].map { Lane(connection: connection, direction: $0) }
  }
}

/// What the relay did, for the summary it prints as it exits, and for progress lines on the
/// way: a relay the host kills with SIGKILL prints no summary, so its counts so far are all
/// that is known of it.
final class Tally: Sendable {
  private struct Counts {
    var frames: [Lane: Int] = [:]
    var mutations: [Mutation: Int] = [:]
    var total = 0
    var mutated = 0
  }

  /// Frames between progress lines.
  static let progressInterval = 100

  private let counts = Mutex(Counts())
  private let progress: @Sendable (_ frames: Int, _ mutated: Int) -> Void

  init(progress: @escaping @Sendable (_ frames: Int, _ mutated: Int) -> Void) {
    self.progress = progress
  }

  func relayed(on lane: Lane, mutation: Mutation?) {
    let report = counts.withLock { counts -> (Int, Int)? in
      counts.frames[lane, default: 0] += 1
      counts.total += 1
      if let mutation {
        counts.mutations[mutation, default: 0] += 1
        counts.mutated += 1
      }
      return counts.total % Self.progressInterval == 0 || mutation != nil ? (counts.total, counts.mutated) : nil
    }
    if let (frames, mutated) = report { progress(frames, mutated) }
  }

  /// One line: `relayed N frames (…), mutated M (…)`. Tests read the first number.
  var summary: String {
    counts.withLock { counts in
      let total = counts.frames.values.reduce(0, +)
      let perLane = Lane.all.map { "\($0) \(counts.frames[$0, default: 0])" }.joined(separator: ", ")
      let mutated = counts.mutations.values.reduce(0, +)
      let perKind = Mutation.allCases.compactMap { kind in
        counts.mutations[kind].map { "\(kind.rawValue) \($0)" }
      }.joined(separator: ", ")
      return "relayed \(total) frames (\(perLane)), mutated \(mutated)"
        + (perKind.isEmpty ? "" : " (\(perKind))")
    }
  }
}
