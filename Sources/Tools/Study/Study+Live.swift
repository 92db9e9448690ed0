import Bulkhead
import BulkheadDistribution
import Synchronization

extension Study {
  /// The study of `--live`: one composition, every boundary that can move placed in workers,
  /// and each placement reached by moving boundaries (`Composition.move`) rather than by
  /// starting workers afresh: every boundary moved to the host for the first run, then each in
  /// turn moved to its workers, measured, faulted, and moved back. Only boundaries not inside
  /// another are studied (a move takes those alone); each move's duration is said as it goes.
  func runLive(progress: (String) -> Void) async throws -> [StudyRun] {
    let all = app.boundaries.map(\.path)
    let boundaries = all.filter { boundary in !all.contains { boundary.hasPrefix($0 + ".") } }
    guard !boundaries.isEmpty else { return try await run(progress: progress) }
    let placement = Placement(file: "study --live", entries: boundaries.map(entry(for:)))
    let live = try LiveComposition { onEvent in
      try Composition(root: app.root(), placement: placement, command: command, onEvent: onEvent)
    }
    defer { live.composition.shutdown() }
    let total = 1 + 3 * boundaries.count
    var count = RunCount(total: total)
    func say(_ text: String) { progress(count.next(text)) }
    func move(_ boundary: String, to residence: Residence) throws {
      do {
        let took = try live.composition.move(boundary, to: residence)
        progress("  moved \(boundary) to the \(residence) in \(StudyTable.format(took))")
      } catch {
        throw DistributionError.usage("the live study cannot move \(boundary): \(error)")
      }
    }
    for boundary in boundaries { try move(boundary, to: .host) }
    say("every boundary in the host (moved there), the script \(rounds) time(s)")
    var runs = [try await measure(placing: [], fault: nil, rounds: rounds, live: live)]
    let (at, actions) = try faultAction(inHost: runs[0])
    for boundary in boundaries {
      try move(boundary, to: .worker)
      say("\(boundary) in a worker (moved there), the script \(rounds) time(s)")
      runs.append(try await measure(placing: [boundary], fault: nil, rounds: rounds, live: live))
      for fault in [StudyRun.Fault.kill(boundary: boundary), .stall(boundary: boundary)] {
        say("\(fault) at action \(at) of \(actions)")
        runs.append(try await measure(placing: [boundary], fault: (fault, at), rounds: 1, live: live))
      }
      try move(boundary, to: .host)
    }
    return runs
  }
}

/// The one composition of a live study, and the recorder of the run under way, which hears
/// the composition's events.
final class LiveComposition: Sendable {
  /// The recorder that hears the events now.
  private final class Listener: Sendable {
    let recorder = Mutex<StudyRecorder?>(nil)
    func note(_ event: BoundaryEvent) { recorder.withLock { $0 }?.note(event) }
  }

  let composition: Composition
  private let listener = Listener()

  /// Takes the composition `make` makes with the event handler it is given.
  init(making make: (_ onEvent: @escaping @Sendable (BoundaryEvent) -> Void) throws -> Composition) rethrows {
    composition = try make(listener.note)
  }

  /// From now on the composition's events go to `recorder`.
  func listen(_ recorder: StudyRecorder) {
    listener.recorder.withLock { $0 = recorder }
  }
}
