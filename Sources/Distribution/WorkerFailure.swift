extension DistributionError {
  /// Why a worker could not be started or reached (`DistributionError.workerUnavailable`):
  /// which worker, and what it did or did not do.
  ///
  /// ```swift
  /// catch DistributionError.workerUnavailable(let boundary, .didNotConnect(let worker, _, let deadline)) { … }
  /// ```
  public enum WorkerFailure: Equatable, Codable, Sendable, CustomStringConvertible {
    /// The composition is shutting down: no worker starts any more.
    case shuttingDown
    /// Worker `worker`, process `pid`, did not connect within `deadline`.
    case didNotConnect(worker: String, pid: Int32, deadline: Duration)
    /// Worker `worker`, process `pid`, could not be reached: what the connection reported.
    case unreachable(worker: String, pid: Int32, error: String)
    /// Worker `worker`, process `pid`, connected but did not greet the host within `deadline`,
    /// its start-up deadline (the placement's `startup`, with the start-ups of the workers
    /// placed inside it, which start before it greets).
    case didNotGreet(worker: String, pid: Int32, deadline: Duration)
    /// Worker `worker` closed its connection before it greeted the host.
    case closedBeforeGreeting(worker: String)
    /// Worker `worker`, started from `executable`, did not greet the host: what its call
    /// reported. An executable built from other code answers so.
    case noGreeting(worker: String, executable: String, error: String)
    /// Worker `worker` serves nothing, and says why: started for an app or a boundary its
    /// executable does not have.
    case refused(worker: String, explanation: String)
    /// Worker `worker`, started from `executable`, serves `serves` where the host expects
    /// `expected`: an executable built from other code.
    case servesAnother(worker: String, executable: String, serves: String, expected: String)
    /// Worker `pid` was given up, for `reason`, and is not used again.
    case gaveUp(pid: Int32, reason: String)

    public var description: String {
      switch self {
      case .shuttingDown: "the composition is shutting down"
      case let .didNotConnect(worker, pid, deadline): "worker \(worker) (pid \(pid)) did not connect within \(deadline)"
      case let .didNotGreet(worker, pid, deadline):
        "worker \(worker) (pid \(pid)) did not greet the host within its start-up deadline of \(deadline); "
          + "on a loaded machine, give the boundary a longer startup in the placement (startup 30s)"
      case let .unreachable(worker, pid, error): "worker \(worker) (pid \(pid)) could not be reached: \(error)"
      case let .closedBeforeGreeting(worker): "worker \(worker) closed its connection before it greeted the host"
      case let .noGreeting(worker, executable, error):
        "worker \(worker) did not greet the host (\(error)); \(Self.rebuild(executable))"
      case let .refused(_, explanation): explanation
      case let .servesAnother(worker, executable, serves, expected):
        "worker \(worker) serves \(serves), the host expects \(expected); \(Self.rebuild(executable))"
      case let .gaveUp(pid, reason): "worker \(pid): \(reason)"
      }
    }

    private static func rebuild(_ executable: String) -> String {
      "rebuild \(executable) with the host (\"./compose.sh run\" builds both)"
    }
  }
}
