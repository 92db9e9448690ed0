/// Moving a placed boundary between its workers and the host while the composition runs,
/// as events of the host's state machine (drawn in docs/state-machines.md, "Moving a
/// boundary").
///
/// Every action that reaches the boundary enters it first: in the host, it is refused, and
/// the core runs the child in the host's process; in workers, it is counted until it leaves.
/// A move to the host lets the workers go at once, but a worker is drained (kept for its
/// effects, then retired) only once no action is still with it, so that the effects an
/// action in flight starts there are counted before the worker may retire.
extension BoundaryMachine {
  /// Event: an action reaches the boundary. Whether it runs in a worker, counted as busy
  /// until `leave()`; false when the boundary is in the host, where the action runs instead.
  mutating func enter() -> Bool {
    guard residence == .worker else { return false }
    busy += 1
    return true
  }

  /// Event: an action that entered has its answer, its effects' proxies made, or was given
  /// up. The last to leave hands the workers a move let go meanwhile over to be drained.
  mutating func leave() -> [Command] {
    busy -= 1
    return drainLeaving()
  }

  /// Event: the boundary moves to the host. The host's copy of the child state is already
  /// the whole truth (a worker's outcome counts only once the host applied it), so nothing
  /// crosses: the pool's workers are let go, kept for the effects they run, and forgotten.
  /// An action waiting for a worker to start runs in the host instead, once.
  mutating func moveToHost() throws(MoveRefusal) -> [Command] {
    try checkMove(to: .host)
    residence = .host
    for index in members.indices {
      let link = members[index].link
      forget(index, link)
      // A worker starting for this place is closed when it has started: nothing waits for it.
      members[index] = .empty
      if let link { leaving.append(link) }
    }
    return drainLeaving()
  }

  /// Event: the boundary moves to its workers. A fresh worker starts at every place of the
  /// pool, with no copy of any child state: its first action carries the host's copy whole,
  /// as after a restart. Actions that come meanwhile wait for the start, then run there. A
  /// boundary that draws from the warm pool starts none: its places are vacant, and the next
  /// action claims a warm worker, as after a presentation.
  mutating func moveToWorkers() throws(MoveRefusal) -> [Command] {
    try checkMove(to: .worker)
    residence = .worker
    if drawsFromWarmPool {
      members = members.map { _ in .vacant }
      return []
    }
    return members.indices.map { index in
      let start = WorkerStart()
      members[index] = .starting(start)
      return .launch(index: index, start: start, after: .zero, restarting: nil)
    }
  }

  /// Event: every effect `link` ran when a move let it go has ended (or was lost with it):
  /// it retires. Nothing to do for a link the composition's stop closed already.
  mutating func drained(_ link: Link) -> [Command] {
    guard let index = draining.firstIndex(where: { $0 === link }) else { return [] }
    draining.remove(at: index)
    statistics.workersRetired += 1
    return [.report(.workerRetired(boundary: path, pid: link.pid)), .retire(link)]
  }

  /// Hands the workers a move let go over to be drained, once no action is with them.
  private mutating func drainLeaving() -> [Command] {
    guard busy == 0, !leaving.isEmpty else { return [] }
    defer { leaving = [] }
    draining += leaving
    return leaving.map(Command.drain)
  }

  /// Refuses a move to where the boundary is, or of one that no longer takes actions.
  private func checkMove(to destination: Residence) throws(MoveRefusal) {
    if isStopped { throw .shuttingDown(boundary: path) }
    if let failure { throw .failed(boundary: path, reason: failure) }
    if residence == destination { throw .alreadyThere(boundary: path, residence: destination) }
  }
}
