import Bulkhead
import BulkheadDistribution
import CoreBenchmarks
import Examples
import Foundation

/// An action two levels down (the Account example's `profile.avatar`, placed in a worker that
/// the `profile` worker starts) against the same action one level down (`profile` alone in a
/// worker, its avatar inside it), in the same run: what one more level of nesting costs.
@MainActor
func nestedBenchmarks(label: String, iterations: Int = 5_000) throws -> [Row] {
  let one = try avatarEdit(placement: ["profile"], iterations: iterations)
  let two = try avatarEdit(placement: ["profile", "profile.avatar"], iterations: iterations)
  return [
    Row(
      name: "\(label) an action one level down (profile in a worker, its avatar in the same worker)",
      value: one / 1000, unit: "µs", baseline: nil),
    Row(
      name: "\(label) the same action two levels down (profile.avatar in a worker of the profile's worker)",
      value: two / 1000, unit: "µs", baseline: one / 1000),
  ]
}

/// Nanoseconds per `.profile(.avatar(.edited))` with `placement`, every worker placed as the
/// layout in force says.
@MainActor
private func avatarEdit(placement paths: [String], iterations: Int) throws -> Double {
  let composition = try Composition(
    root: Account(), placement: Placement(file: "benchmark", entries: paths.map { .init(path: $0) }),
    command: childWorker(app: "account"))
  defer { composition.shutdown() }
  for pid in composition.processes.flatMap(\.pids) {
    CPULayout.place(worker: pid)
    for inner in children(of: pid) { CPULayout.place(worker: inner) }
  }
  let store = Store(initialState: Account.State()) { composition.compose(Account()) }
  store.send(.profile(.avatar(.edited)))
  return nanosecondsPerCall(iterations: iterations, rounds: 3) { store.send(.profile(.avatar(.edited))) }
}

/// The processes whose parent is `pid`, from /proc.
private func children(of pid: Int32) -> [Int32] {
  let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
  return entries.compactMap(Int32.init).filter { child in
    guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
      let nameEnd = stat.lastIndex(of: ")")
    else { return false }
    return stat[stat.index(after: nameEnd)...].split(separator: " ").dropFirst().first == Substring("\(pid)")
  }
}
