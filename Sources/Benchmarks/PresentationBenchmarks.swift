import Bulkhead
import BulkheadDistribution
import CoreBenchmarks
import Examples
import Foundation

/// Presenting a child and running its first action, right after the last one was dismissed.
///
/// Notes' sheet: in one process; with the whole destination in a worker of its own (`warm 0`:
/// retired on dismissal, its successor forked in the background, so a quick re-presentation
/// waits for it); in a worker claimed from the warm pool; and with only the editor inside the
/// sheet in a worker (forgets the editor, stays warm).
///
/// An `ifLet` child (`DetailPresenter`'s detail): in the host, and in a worker claimed from the
/// composition's warm pool, whose goal is at most twice the host's time (issue 26). The warm
/// rows let the pool refill between presentations, untimed, as a user's pace does.
@MainActor
func presentationBenchmarks() throws -> [Row] {
  let inProcess = presentingSheet(Store(initialState: Notes.State()) { Notes() })
  let whole = try presentingSheet(placement: "destination\nwarm 0")
  let warmSheet = try presentingSheet(placement: "destination")
  let inside = try presentingSheet(placement: "destination.editor")
  let inHost = presentingDetail(Store(initialState: DetailPresenter.State()) { DetailPresenter() })
  let warmDetail = try presentingDetail(placement: "detail")
  return [
    Row(name: "present the sheet and run its first action: in one process", value: inProcess, unit: "µs", baseline: nil),
    Row(
      name: "the same, the destination in a worker of its own retired on each dismissal (warm 0: its successor starts meanwhile)",
      value: whole, unit: "µs", baseline: inProcess),
    Row(
      name: "the same, the destination in a worker from the warm pool (refilled between presentations)",
      value: warmSheet, unit: "µs", baseline: inProcess),
    Row(
      name: "the same, only the editor inside the sheet in a worker, which stays warm",
      value: inside, unit: "µs", baseline: inProcess),
    Row(name: "present an ifLet child and run its first action: in the host", value: inHost, unit: "µs", baseline: nil),
    Row(
      name: "presenting an ifLet child in a worker from the warm pool (refilled between presentations)",
      value: warmDetail, unit: "µs", baseline: inHost, goal: .ratio(2)),
  ]
}

/// `measure` of a store of `root`, composed with `placement` (its workers `app`'s), given a
/// wait for the warm pool to refill to run between presentations.
@MainActor
private func inComposition<Root: Reducer>(
  _ root: Root, app: String, placement: String, initialState: Root.State,
  measure: (Store<Root.State, Root.Action>, _ between: () -> Void) -> Double
) throws -> Double {
  let composition = try Composition(
    root: root, placement: Placement(parsing: placement, file: "benchmark"), command: try childWorker(app: app))
  defer { composition.shutdown() }
  let store = Store(initialState: initialState) { composition.compose(root) }
  return measure(store) { _ = composition.waitForWarmPool() }
}

@MainActor
private func presentingSheet(placement: String) throws -> Double {
  try inComposition(Notes(), app: "notes", placement: placement, initialState: Notes.State(), measure: presentingSheet)
}

@MainActor
private func presentingDetail(placement: String) throws -> Double {
  try inComposition(
    DetailPresenter(), app: "detail", placement: placement, initialState: DetailPresenter.State(),
    measure: presentingDetail)
}

/// Presenting the sheet and typing into it.
@MainActor
private func presentingSheet(_ store: Store<Notes.State, Notes.Action>, between: () -> Void = {}) -> Double {
  medianMicroseconds(between: between) { round in
    store.send(.addButtonTapped)
    store.send(.destination(.presented(.editor(.titleChanged("note \(round)")))))
  } dismiss: {
    store.send(.destination(.dismiss))
  }
}

/// Presenting the detail and typing into it.
@MainActor
private func presentingDetail(
  _ store: Store<DetailPresenter.State, DetailPresenter.Action>, between: () -> Void = {}
) -> Double {
  medianMicroseconds(between: between) { round in
    store.send(.showDetailTapped)
    store.send(.detail(.descriptionChanged("detail \(round)")))
  } dismiss: {
    store.send(.detail(.closeButtonTapped))
  }
}

/// The median time, in microseconds, of `present` over 200 rounds (the first 10 not counted),
/// each followed by `dismiss` and `between`, untimed.
@MainActor
private func medianMicroseconds(between: () -> Void, present: (Int) -> Void, dismiss: () -> Void) -> Double {
  let clock = ContinuousClock()
  var times: [Duration] = []
  for round in 0..<200 {
    let time = clock.measure { present(round) }
    dismiss()
    between()
    if round >= 10 { times.append(time) }
  }
  let median = times.sorted()[times.count / 2]
  return Double(median.components.seconds) * 1e6 + Double(median.components.attoseconds) / 1e12
}
