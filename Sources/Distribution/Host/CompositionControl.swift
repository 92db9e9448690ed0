import Dispatch
import Distributed
import Foundation
package import Transport

/// The control endpoint of a running composition: a distributed actor that another process of
/// the same user reaches through the composition's control socket (`Composition.startControl()`)
/// to see its workers, inject faults and move boundaries, as `./compose.sh ps`, `kill`, `stop`,
/// `slow`, `move` and `down` do.
///
/// ```swift
/// let control = try CompositionControl.resolve(id: CompositionControl.id, using: system)
/// let placed = try await control.processes()
/// try await control.kill(boundary: "counter1", index: 0)
/// ```
package distributed actor CompositionControl {
  package typealias ActorSystem = SocketActorSystem

  /// The name the host hosts it under, which its clients know.
  package static let id = SocketActorID(number: 4)

  /// The longest `slow` delay: a minute per reply is slow enough to study anything.
  package static let longestReplyDelay = 60_000

  private let composition: WeakBox<Composition>
  private let onDown: @Sendable () -> Void

  init(composition: WeakBox<Composition>, onDown: @escaping @Sendable () -> Void, actorSystem: SocketActorSystem) {
    self.composition = composition
    self.onDown = onDown
    self.actorSystem = actorSystem
  }

  /// Each placed boundary and the pids of its workers, in placement order.
  package distributed func processes() -> [Wire.PlacedWorkers] {
    (composition.value?.processes ?? []).map { Wire.PlacedWorkers(boundary: $0.boundary, pids: $0.pids.map(Int.init)) }
  }

  /// Each placed boundary, its workers and what has crossed it so far: what `ps` and `top`
  /// show.
  package distributed func snapshot() -> Wire.ControlSnapshot {
    Wire.ControlSnapshot(
      hostPID: Int(getpid()), boundaries: composition.value?.boundarySnapshots ?? [],
      limitMechanism: composition.value?.limitMechanism.map(String.init(describing:)) ?? "",
      warmPIDs: composition.value?.warmPIDs.map(Int.init) ?? [])
  }

  /// Kills worker `index` of `boundary` with SIGKILL, as a crash would; the host starts its
  /// successor at once.
  ///
  /// - Throws: `DistributionError.unknownBoundary` for a boundary that is not placed, and a
  ///   `ControlError` for an index its pool does not have, a boundary that failed, or a worker
  ///   being restarted. Both reach the caller as themselves.
  package distributed func kill(boundary: String, index: Int) throws {
    _ = try send(.kill, boundary: boundary, index: index)
  }

  /// Sends `signal` to worker `index` of `boundary`: SIGKILL as a crash, after which the host
  /// starts a successor at once; SIGSTOP as a worker that hangs (the host's liveness probe
  /// gives it up past its deadline, and the next action starts a successor); SIGCONT to let
  /// it go on.
  ///
  /// Returns whether the signal reached a running worker, or found it exited before the host
  /// noticed.
  ///
  /// - Throws: as `kill(boundary:index:)`.
  package distributed func send(
    _ signal: Wire.WorkerSignal, boundary: String, index: Int
  ) throws -> Wire.SignalDelivery {
    let remote = try placed(boundary)
    let places = remote.places.count
    guard (0..<places).contains(index) else {
      throw ControlError.noSuchWorker(boundary: boundary, index: index, workers: places)
    }
    if let failure = remote.failure {
      throw ControlError.boundaryFailed(boundary: boundary, reason: failure)
    }
    guard remote.residence == .worker else { throw ControlError.inHost(boundary: boundary) }
    let delivery =
      signal == .kill
      ? remote.killAndRestart(worker: index)?.delivery
      : remote.send(signal: signal.number, toWorker: index)
    guard let delivery else { throw ControlError.workerRestarting(boundary: boundary, index: index) }
    return delivery
  }

  /// Holds every reply of `boundary`'s workers for `milliseconds` before the host takes it;
  /// 0 turns it off.
  ///
  /// - Throws: `DistributionError.unknownBoundary` for a boundary that is not placed, and
  ///   `ControlError.delayOutOfRange` for a delay below 0 or above `longestReplyDelay`.
  package distributed func slow(boundary: String, milliseconds: Int) throws {
    let remote = try placed(boundary)
    guard (0...Self.longestReplyDelay).contains(milliseconds) else {
      throw ControlError.delayOutOfRange(milliseconds: milliseconds, limit: Self.longestReplyDelay)
    }
    remote.replyDelay = milliseconds
  }

  /// Moves placed `boundary` to `residence` while the composition runs, as
  /// `./compose.sh move` asks, and returns how long the move took, in nanoseconds: see
  /// `Composition.move(_:to:)`.
  ///
  /// - Throws: `MoveRefusal`, which reaches the caller as itself, when the boundary cannot
  ///   move there; `ControlError.shuttingDown` once the composition is going down.
  package distributed func move(boundary: String, to residence: Residence) throws -> Int {
    guard let composition = composition.value else { throw ControlError.shuttingDown }
    return Int(try composition.move(boundary, to: residence) / .nanoseconds(1))
  }

  /// How long `send` and `state` wait for the app's script to end before they give up: a
  /// little less than a client waits for an answer.
  package static let scriptWait = Duration.seconds(4)

  /// Sends `actions`, written as `run` prints them or as JSON, to the root store, once its
  /// script has ended: every one is read before any is sent. Returns each action and the
  /// state after it.
  ///
  /// - Throws: `ControlError.actionUnreadable` naming the first action that does not read,
  ///   and where; `ControlError.scriptRunning` when the script goes on past `scriptWait`.
  package distributed func send(actions: [String]) async throws -> [Wire.SentAction] {
    let root = try await liveRoot()
    return try await root.send(actions)
  }

  /// The root state, or `boundary`'s, as `run` prints it or (`json`) as JSON.
  ///
  /// - Throws: `ControlError.noStateAt` for a boundary whose state is not found,
  ///   `ControlError.notEncodable` for JSON of a state that is not `Encodable`.
  package distributed func state(boundary: String?, json: Bool) async throws -> String {
    let root = try await liveRoot()
    return try await root.state(of: boundary, json: json)
  }

  private func liveRoot() async throws(ControlError) -> any LiveRoot {
    guard let composition = composition.value else { throw ControlError.shuttingDown }
    guard let root = await composition.liveRoot.wait(within: Self.scriptWait) else {
      throw ControlError.scriptRunning(after: Self.scriptWait)
    }
    return root
  }

  /// Takes the composition down, as `./compose.sh down` asks: after this call has answered,
  /// the host stops its workers, removes its sockets and run file, and exits.
  package distributed func down() {
    // On another thread, so that the answer leaves before the host closes this connection.
    DispatchQueue.global().async(execute: onDown)
  }

  private func placed(_ boundary: String) throws -> RemoteBoundary {
    guard let composition = composition.value else {
      throw ControlError.shuttingDown
    }
    guard let remote = composition.remote(boundary) else {
      throw DistributionError.unknownBoundary(boundary, known: composition.processes.map(\.boundary))
    }
    return remote
  }
}

extension Wire {
  /// The workers of one placed boundary, as `CompositionControl.processes()` gives them.
  package struct PlacedWorkers: Equatable, Sendable, WireCodable {
    package var boundary: String
    package var pids: [Int]

    package func write(to writer: inout ByteWriter) {
      writer.write(boundary)
      pids.write(to: &writer)
    }

    init(boundary: String, pids: [Int]) {
      (self.boundary, self.pids) = (boundary, pids)
    }

    package init(from reader: inout ByteReader) throws(TransportError) {
      boundary = try reader.readString()
      pids = try [Int](from: &reader)
    }
  }
}
