internal import Transport

extension WorkerLink {
  /// What a host needs to start a worker for one boundary.
  struct Plan: Sendable {
    let boundary: String
    let expected: Wire.Greeting
    let command: WorkerCommand
    let directory: SocketDirectory
    let roster: WorkerRoster
    /// Forks workers; nil when each is spawned.
    let templates: TemplateKeeper?
    let deadline: Duration
    let startupDeadline: Duration
    /// The placed boundaries inside this one, which its worker places itself.
    let inner: InnerPlacement
    /// The limits each worker starts under; nil: none.
    let limits: LimitRequest?
    let output: @Sendable (WorkerProcess.OutputLine) -> Void
    let report: @Sendable (BoundaryEvent) -> Void
  }

  /// A worker the host gave up, and why: it stalled, its connection ended, it broke the protocol.
  struct GivenUp: Error, CustomStringConvertible {
    let pid: Int32
    let reason: RestartReason

    var description: String { "worker \(pid): \(reason)" }
  }
}
