import Transport

/// Moves the frames of one lane from `source` to `destination`, damaging some. Runs on a
/// thread of its own and returns, saying why, when the lane ends.
///
/// `@unchecked Sendable` because it is handed to one thread and used only there. The other
/// lane of the same connection reads the socket this one writes (and writes the one this one
/// reads), which is safe: `UnixSocket` reads and writes only use the descriptor, and neither
/// lane closes it before the process exits.
final class FramePump: @unchecked Sendable {
  let lane: Lane
  private let source: FramedConnection
  private let destination: UnixSocket
  private var mutator: Mutator
  private let tally: Tally
  private let log: (@Sendable (String) -> Void)?
  private let recomputesChecksums: Bool

  init(
    lane: Lane, from source: FramedConnection, to destination: UnixSocket, mutator: Mutator, tally: Tally,
    recomputesChecksums: Bool, log: (@Sendable (String) -> Void)?
  ) {
    self.lane = lane
    self.source = source
    self.destination = destination
    self.mutator = mutator
    self.tally = tally
    self.recomputesChecksums = recomputesChecksums
    self.log = log
  }

  /// Relays until the source closes or a write fails, and says why the lane ended; nil when
  /// the lane stalled on purpose, which must not end the relay.
  func run() -> String? {
    var index = 0
    var bytes: [UInt8] = []
    do throws(TransportError) {
      while let frame = try source.receive() {
        let (delivery, mutation) = mutator.deliver(frame, index: index)
        tally.relayed(on: lane, mutation: mutation?.mutation)
        if let mutation {
          log?("mutated \(lane.connection.rawValue) frame \(index) \(lane.direction.rawValue): \(mutation.mutation.rawValue) (\(mutation.detail))")
        }
        index += 1
        switch delivery {
        case let .forward(forwarded):
          bytes.removeAll(keepingCapacity: true)
          // The damage happens on the line: the frame keeps the checksum of what was sent,
          // unless the damage is to reach the decoders.
          FramedConnection.append(forwarded, to: &bytes, checksum: recomputesChecksums ? nil : frame.checksum)
          try write(bytes)
        case let .cut(partial):
          try write(partial)
          destination.shutdown()
          return "cut a frame on \(lane) and closed it"
        case .drop:
          continue
        case .stall:
          log?("stalled \(lane) after frame \(index - 1)")
          return nil
        }
      }
      return "\(lane.direction == .toWorker ? "the host" : "the worker") closed \(lane.connection.rawValue)"
    } catch {
      return "\(lane): \(error)"
    }
  }

  private func write(_ bytes: [UInt8]) throws(TransportError) {
    try bytes.withUnsafeBytes { raw in
      Result { () throws(TransportError) in try destination.write(raw) }
    }.get()
  }
}
