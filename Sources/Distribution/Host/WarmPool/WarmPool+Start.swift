import Bulkhead
import Synchronization
internal import Transport

extension WarmPool {
  /// The name the warm pool's workers carry in their output lines until a boundary claims them.
  static let label = "warm"

  /// A composition's warm pool of `size` workers of `command`, forked from `templates` when
  /// there is a template, with no limits, reporting what it gives up as output of `warm`.
  convenience init(
    size: Int, command: WorkerCommand, directory: SocketDirectory, roster: WorkerRoster, templates: TemplateKeeper?,
    policy: RestartPolicy, onEvent: @escaping @Sendable (BoundaryEvent) -> Void,
    onOutput: @escaping @Sendable (WorkerOutput) -> Void
  ) throws {
    let started = Atomic<Int>(0)
    let inner = InnerPlacement(inside: Wire.warmBoundary, of: .inProcess, policy: policy)
    try self.init(
      size: size,
      start: {
        let number = started.add(1, ordering: .relaxed).newValue
        let label = Locked(Self.label)
        let plan = WorkerLink.Plan(
          boundary: Wire.warmBoundary, expected: Wire.Greeting(boundary: Wire.warmBoundary, state: "", action: ""),
          command: command, directory: directory, roster: roster, templates: templates,
          deadline: Placement.Entry.defaultDeadline, startupDeadline: Placement.Entry.defaultStartupDeadline,
          inner: inner, limits: nil,
          output: { line in onOutput(WorkerOutput(line, boundary: label.withLock { $0 })) }, report: onEvent)
        let connected = try WorkerLink.connect(plan, name: "\(Self.label)-\(number)", serving: Wire.warmBoundary, brief: "")
        guard connected.hello == .warm else {
          connected.system.close()
          connected.process.kill()
          throw DistributionError.workerUnavailable(
            boundary: Self.label,
            reason: .servesAnother(
              worker: connected.process.name, executable: command.executable.lastPathComponent,
              serves: "\(connected.hello)", expected: "no boundary yet (a warm worker)"))
        }
        return WarmWorker(connected, label: label)
      },
      report: { text in
        onOutput(WorkerOutput(WorkerProcess.OutputLine(worker: Self.label, stream: .standardError, text: text), boundary: Self.label))
      })
  }
}
