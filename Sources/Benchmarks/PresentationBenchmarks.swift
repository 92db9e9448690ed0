import Bulkhead
import BulkheadDistribution
import CoreBenchmarks
import Examples
import Foundation

/// Presenting Notes' sheet and running its first action, right after the last sheet was
/// dismissed: in one process, with the whole destination in a worker (retired on dismissal,
/// its successor forked in the background, so a quick re-presentation waits for it), and with
/// only the editor inside the sheet in a worker (forgets the editor, stays warm).
@MainActor
func presentationBenchmarks() throws -> [Row] {
  let inProcess = presenting(Store(initialState: Notes.State()) { Notes() })
  let whole = try presenting(placement: "destination")
  let inside = try presenting(placement: "destination.editor")
  return [
    Row(name: "present the sheet and run its first action: in one process", value: inProcess, unit: "µs", baseline: nil),
    Row(
      name: "the same, the destination in a worker retired on each dismissal (its successor starts meanwhile)",
      value: whole, unit: "µs", baseline: inProcess),
    Row(
      name: "the same, only the editor inside the sheet in a worker, which stays warm",
      value: inside, unit: "µs", baseline: inProcess),
  ]
}

@MainActor
private func presenting(placement: String) throws -> Double {
  let composition = try Composition(
    root: Notes(), placement: Placement(parsing: placement, file: "benchmark"), command: try childWorker(app: "notes"))
  defer { composition.shutdown() }
  return presenting(Store(initialState: Notes.State()) { composition.compose(Notes()) })
}

/// The median time, in microseconds, of presenting the sheet and typing into it, each right
/// after the sheet before was dismissed.
@MainActor
private func presenting(_ store: Store<Notes.State, Notes.Action>) -> Double {
  let clock = ContinuousClock()
  var times: [Duration] = []
  for round in 0..<200 {
    let time = clock.measure {
      store.send(.addButtonTapped)
      store.send(.destination(.presented(.editor(.titleChanged("note \(round)")))))
    }
    store.send(.destination(.dismiss))
    if round >= 10 { times.append(time) }
  }
  let median = times.sorted()[times.count / 2]
  return Double(median.components.seconds) * 1e6 + Double(median.components.attoseconds) / 1e12
}
