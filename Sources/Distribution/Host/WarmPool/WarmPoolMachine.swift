/// The composition's warm pool as a state machine: how many workers it keeps idle, the ones
/// idle now, the starts in flight, and when it gives up refilling. It takes events (opened, a
/// worker started or failed to, one taken by a boundary, an idle one exited, closed) and
/// returns what to do as `Command`s; `WarmPool` keeps it behind one lock and performs them
/// outside it. No clock, thread, process or socket inside.
///
/// Each worker is used once: one taken is never returned (its boundary retires it with its
/// child), so a process never serves a feature after holding another's state.
struct WarmPoolMachine<Worker: AnyObject> {
  /// How many idle workers the pool keeps.
  let size: Int
  /// Idle workers, oldest first: the first to be taken.
  private(set) var idle: [Worker] = []
  /// Starts in flight.
  private(set) var starting = 0
  /// Workers taken whose replacement waits for `replenish()`.
  private(set) var owed = 0
  /// Starts that failed since the last one that succeeded.
  private(set) var failuresInARow = 0
  private(set) var isClosed = false

  /// Failures in a row after which the pool stops refilling, and boundaries start their own
  /// workers as they would without it.
  static var maximumFailures: Int { 3 }

  /// What the pool does next, decided here and done outside the lock.
  enum Command: Equatable {
    /// Start one warm worker.
    case start
    /// Let an idle worker go (the pool closed, or the worker exited).
    case close(Worker)
    /// Say that refilling is given up, and why.
    case giveUp(reason: String)

    static func == (lhs: Command, rhs: Command) -> Bool {
      switch (lhs, rhs) {
      case (.start, .start): true
      case let (.close(a), .close(b)): a === b
      case let (.giveUp(a), .giveUp(b)): a == b
      default: false
      }
    }
  }

  init(size: Int) {
    self.size = size
  }

  /// Whether it has given up refilling.
  var hasGivenUp: Bool { failuresInARow >= Self.maximumFailures }

  /// Whether nothing more will change by itself: every place is idle, or the pool closed or
  /// gave up.
  var isSettled: Bool { isClosed || hasGivenUp || (idle.count == size && starting == 0) }

  /// Event: the composition starts. Starts a worker for every place.
  mutating func open() -> [Command] { refill() }

  /// Event: a start ended with `worker`, connected and greeted.
  mutating func started(_ worker: Worker) -> [Command] {
    starting -= 1
    failuresInARow = 0
    guard !isClosed else { return [.close(worker)] }
    idle.append(worker)
    return []
  }

  /// Event: a start failed for `reason`. Another starts in its place, until too many failed
  /// in a row.
  mutating func failedToStart(_ reason: String) -> [Command] {
    starting -= 1
    failuresInARow += 1
    guard !isClosed else { return [] }
    guard !hasGivenUp else { return [.giveUp(reason: reason)] }
    return refill()
  }

  /// Event: a boundary wants a worker. The oldest idle one, if any; its replacement starts at
  /// `replenish()`, once the worker taken has answered its first request, so that the fork
  /// does not take a core from the presentation that claimed it.
  mutating func take() -> Worker? {
    guard !isClosed, !idle.isEmpty else { return nil }
    owed += 1
    return idle.removeFirst()
  }

  /// Event: a worker taken has answered its first request, or was given up before: its
  /// replacement starts.
  mutating func replenish() -> [Command] {
    owed -= 1
    return refill()
  }

  /// Event: `worker` exited. If it was idle, it leaves the pool and another starts.
  mutating func exited(_ worker: Worker) -> [Command] {
    guard let index = idle.firstIndex(where: { $0 === worker }) else { return [] }
    idle.remove(at: index)
    return [.close(worker)] + refill()
  }

  /// Event: the composition shuts down. Every idle worker goes; no more start.
  mutating func close() -> [Command] {
    isClosed = true
    defer { idle = [] }
    return idle.map(Command.close)
  }

  /// Starts what the pool lacks, unless it closed or gave up.
  private mutating func refill() -> [Command] {
    guard !isClosed, !hasGivenUp else { return [] }
    let missing = size - idle.count - starting - owed
    guard missing > 0 else { return [] }
    starting += missing
    return Array(repeating: .start, count: missing)
  }
}
