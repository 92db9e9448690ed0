import Distributed
internal import Transport

/// The control endpoint of a running composition: a distributed actor that another process of
/// the same user reaches through the composition's control socket (`Composition.startControl()`)
/// to see its workers and inject faults, as the study tools' `ps` and `kill` do.
///
/// ```swift
/// let control = try CompositionControl.resolve(id: CompositionControl.id, using: system)
/// let placed = try await control.processes()
/// try await control.kill(boundary: "counter1", index: 0)
/// ```
distributed actor CompositionControl {
  typealias ActorSystem = SocketActorSystem

  /// The name the host hosts it under, which its clients know.
  static let id = SocketActorID(number: 4)

  private let composition: WeakBox<Composition>

  init(composition: WeakBox<Composition>, actorSystem: SocketActorSystem) {
    self.composition = composition
    self.actorSystem = actorSystem
  }

  /// Each placed boundary and the pids of its workers, in placement order.
  distributed func processes() -> [Wire.PlacedWorkers] {
    (composition.value?.processes ?? []).map { Wire.PlacedWorkers(boundary: $0.boundary, pids: $0.pids.map(Int.init)) }
  }

  /// Kills worker `index` of `boundary` with SIGKILL, as a crash would; the next action there
  /// restarts it.
  ///
  /// - Throws: `DistributionError.unknownBoundary` for a boundary that is not placed, and
  ///   `DistributionError.usage` for an index its pool does not have.
  distributed func kill(boundary: String, index: Int) throws {
    guard let composition = composition.value else { return }
    let placed = composition.processes
    guard let entry = placed.first(where: { $0.boundary == boundary }) else {
      throw DistributionError.unknownBoundary(boundary, known: placed.map(\.boundary))
    }
    guard entry.pids.indices.contains(index) else {
      throw DistributionError.usage("\(boundary) has workers 0 to \(entry.pids.count - 1); there is no worker \(index)")
    }
    composition.killWorker(of: boundary, index: index)
  }
}

extension Wire {
  /// The workers of one placed boundary, as `CompositionControl.processes()` gives them.
  struct PlacedWorkers: Equatable, Sendable, WireCodable {
    var boundary: String
    var pids: [Int]

    func write(to writer: inout ByteWriter) {
      writer.write(boundary)
      pids.write(to: &writer)
    }

    init(boundary: String, pids: [Int]) {
      (self.boundary, self.pids) = (boundary, pids)
    }

    init(from reader: inout ByteReader) throws(TransportError) {
      boundary = try reader.readString()
      pids = try [Int](from: &reader)
    }
  }
}
