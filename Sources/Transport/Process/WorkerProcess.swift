import CSystem
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A worker process started by the host, with its standard input and output on one socket
/// (`WorkerConsole`) and its standard error on a pipe.
///
/// The worker learns its socket path and a per-launch secret from its standard input (never
/// from its arguments or environment, which other users can read; a forked worker learns that
/// its connections came with its fork), and exits when that input
/// ends, that is when the host lets it go or dies. Its output comes back line by line,
/// labelled with its name and stream.
///
/// A spawned worker is Foundation's to reap, so the host holds its pidfd to signal it safely.
/// A forked one is reaped here: while it runs the host holds no pidfd (its pid stays its own
/// until the host reaps it), only from when its exit is expected (`ProcessLife.watchExit`).
///
/// ```swift
/// let worker = try WorkerProcess(
///   name: "counter1", executable: workerURL, socketPath: path, secret: secret
/// ) { line in print("[\(line.worker)] \(line.text)") }
/// ```
package final class WorkerProcess: Sendable {
  /// One line a worker wrote to standard output or standard error.
  package struct OutputLine: Sendable, Equatable {
    package enum Stream: String, Sendable { case standardOutput = "stdout", standardError = "stderr" }
    package let worker: String
    package let stream: Stream
    package let text: String

    package init(worker: String, stream: Stream, text: String) {
      (self.worker, self.stream, self.text) = (worker, stream, text)
    }
  }

  /// How a worker ended.
  package enum Exit: Sendable, Equatable, CustomStringConvertible {
    case exited(status: Int32)
    case signalled(signal: Int32)

    package var description: String {
      switch self {
      case let .exited(status): "exited with status \(status)"
      case let .signalled(signal): "killed by signal \(signal)"
      }
    }
  }

  package let name: String
  package let pid: pid_t
  /// Kept so that the owner's release of this object releases the `Process` too; nil for a
  /// worker a template forked, which Foundation knows nothing of.
  private let process: Process?
  private let life: ProcessLife

  /// Starts `executable` and hands it `socketPath`, `secret` and `brief` (one line, which
  /// the worker's `WorkerLaunch` passes on unread) on standard input.
  ///
  /// The child is started on `SpawnThread` (the calling thread waits), so its parent-death
  /// signal is tied to the life of this process, not of the calling thread.
  package init(
    name: String, executable: URL, arguments: [String] = [], socketPath: String,
    secret: LaunchSecret, brief: String = "", limits: LimitRequest? = nil,
    output: @escaping @Sendable (OutputLine) -> Void
  ) throws {
    self.name = name
    let life = ProcessLife()
    let launch = WorkerLaunch.text(.listener(socketPath: socketPath, secret: secret), brief: brief)
    (process, pid) = try SpawnThread.run { () throws -> (Process, pid_t) in
      try Self.start(
        name: name, executable: executable, arguments: arguments, launch: launch, limits: limits, life: life,
        output: output)
    }
    self.life = life
  }

  /// Asks `template` for a new worker (a copy of the template, which serves `request`),
  /// handing it the worker's ends of `connections` with the request, and `brief` on standard
  /// input as a spawned worker gets its launch; the worker's ends are closed here, whatever
  /// happens.
  ///
  /// The worker is this process's child, as a spawned one is: the host reaps it, and its
  /// parent-death signal follows the host, not the template.
  package init(
    name: String, forkedBy template: WorkerTemplate, request: String, handing connections: HandedConnections,
    brief: String = "", limits: LimitRequest? = nil, output: @escaping @Sendable (OutputLine) -> Void
  ) throws {
    defer { connections.closeWorkerEnds() }
    self.name = name
    let life = ProcessLife()
    let (console, workerEnd) = try WorkerConsole.make()
    let standardError: (read: Int32, write: Int32)
    do {
      standardError = try Self.pipe()
    } catch {
      console.close()
      Glibc.close(workerEnd)
      throw error
    }
    let started: (pid: pid_t, pidfd: Int32)
    var groups: JoinableGroups?
    // A worker with no limits to enforce finds its launch waiting when it begins, and goes on
    // to its greeting while the host takes the template's answer; one with limits reads it
    // only once they are enforced.
    let launch = WorkerLaunch.text(.handed, brief: brief)
    let launchesWithFork = limits?.limits.isEmpty ?? true
    do {
      defer { for end in [workerEnd, standardError.write] { Glibc.close(end) } }
      if launchesWithFork { try console.write(launch) }
      groups = try limits.flatMap { limits throws(TransportError) in
        try limits.enforcer.groupsToJoin(limits.limits, name: name)
      }
      defer { groups?.closeDescriptors() }
      // Standard input, output and error, in that order (the console is the first two), then
      // the connections, then the cgroups it joins as it begins.
      started = try template.fork(
        request: request,
        descriptors: [workerEnd, workerEnd, standardError.write] + connections.workerDescriptors + (groups?.descriptors ?? []))
    } catch {
      groups?.remove()
      console.close()
      Glibc.close(standardError.read)
      throw error
    }
    pid = started.pid
    process = nil
    self.life = life
    life.setConsole(console)
    // The pidfd proved the pid; the host holds none while the worker runs. The process is
    // this one's child, reaped here, so its pid stays its own until then: signals go by pid,
    // and its exit is watched once it is expected (`ProcessLife.watchExit`).
    Glibc.close(started.pidfd)
    life.started(pid: started.pid, pidfd: -1, reapedHere: true)
    // The exit watch (one epoll for the process) is made with the first worker, as it was
    // when it watched every pidfd from the start: not later, at a first exit, when a count of
    // what the host holds would take it for a leak.
    _ = DescriptorWatch.exits
    Self.forwardLines(of: console, from: name, to: output, life: life)
    Self.forwardLines(of: standardError.read, as: .standardError, from: name, to: output, life: life)
    do {
      try life.enforce(limits, name: name, joined: groups)
      if !launchesWithFork { try life.write(launch) }
    } catch {
      life.end(with: SIGKILL)
      throw error
    }
  }

  /// A pipe whose ends are closed in programs this process starts.
  private static func pipe() throws(TransportError) -> (read: Int32, write: Int32) {
    var ends: [Int32] = [0, 0]
    guard bulkhead_pipe(&ends) == 0 else {
      throw .system(call: "pipe2", errno: errno, context: "the standard error of a worker")
    }
    return (ends[0], ends[1])
  }

  /// Releases what the host holds for the worker that is still open: ends its standard
  /// input (which tells it to exit). Its console and error pipe close when it has exited and
  /// they reach their end, and Foundation reaps it.
  deinit { life.closeInput() }

  /// Starts the process; runs on the spawn thread.
  private static func start(
    name: String, executable: URL, arguments: [String], launch: [UInt8], limits: LimitRequest?, life: ProcessLife,
    output: @escaping @Sendable (OutputLine) -> Void
  ) throws -> (Process, pid_t) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let (console, workerEnd) = try WorkerConsole.make()
    // Closed below once the worker has its copies: the Process would hold it as long as it lives.
    let workerConsole = FileHandle(fileDescriptor: workerEnd, closeOnDealloc: true)
    let standardError = Pipe()
    // The host's ends are for the host only: no program it runs by other means than
    // Foundation's Process (which closes every other descriptor in the child) may inherit
    // them, or a worker would not see end of file on its input when the host dies. The
    // console's are made so.
    _ = fcntl(standardError.fileHandleForReading.fileDescriptor, F_SETFD, FD_CLOEXEC)
    process.standardInput = workerConsole
    process.standardOutput = workerConsole
    process.standardError = standardError
    process.terminationHandler = { [life] process in
      let exit: Exit =
        process.terminationReason == .uncaughtSignal
        ? .signalled(signal: process.terminationStatus)
        : .exited(status: process.terminationStatus)
      // Foundation on Linux keeps a Process alive through a run loop source that refers back
      // to it, and drops that source only in waitUntilExit(): a Process watched only through
      // its terminationHandler is never deallocated, nor its pipes closed (two descriptors
      // per worker). The process has finished, so waitUntilExit() returns at once; it runs on
      // the spawn thread, whose run loop the source was added to in run().
      SpawnThread.run { process.waitUntilExit() }
      life.recordExit(exit)
    }
    life.setConsole(console)
    do {
      defer { try? workerConsole.close() }
      try process.run()
    } catch {
      console.close()
      throw error
    }
    let pid = process.processIdentifier
    life.started(pid: pid, pidfd: bulkhead_pidfd_open(pid))
    forwardLines(of: console, from: name, to: output, life: life)
    // The watch owns the descriptor from here and closes it at the end: a copy, as the Pipe
    // closes its own when Foundation releases it.
    let errors = fcntl(standardError.fileHandleForReading.fileDescriptor, F_DUPFD_CLOEXEC, 0)
    try? standardError.fileHandleForReading.close()
    if errors >= 0 {
      forwardLines(of: errors, as: .standardError, from: name, to: output, life: life)
    } else {
      life.outputEnded()
    }
    do {
      try life.enforce(limits, name: name)
      try life.write(launch)
    } catch {
      life.end(with: SIGKILL)
      throw error
    }
    return (process, pid)
  }

  /// Reads the worker's standard output from its console until its end, as `forwardLines`
  /// does a pipe; the console is closed then, by itself, so that a late write or shutdown of
  /// the input cannot reach a number reused.
  private static func forwardLines(
    of console: WorkerConsole, from name: String, to output: @escaping @Sendable (OutputLine) -> Void, life: ProcessLife
  ) {
    forwardLines(of: console.descriptor, as: .standardOutput, from: name, to: output, life: life, closedBy: console)
  }

  /// Reads `descriptor` on the output watch until end of file, handing on whole lines; then
  /// the watch closes it, or `console`, when it is the console's. Not `readabilityHandler`: a
  /// dispatch source whose pipe closed under it has crashed libdispatch's event loop in this
  /// process.
  private static func forwardLines(
    of descriptor: Int32, as stream: OutputLine.Stream, from name: String,
    to output: @escaping @Sendable (OutputLine) -> Void, life: ProcessLife, closedBy console: WorkerConsole? = nil
  ) {
    let lines = LineSplitter()
    DescriptorWatch.output.watch(descriptor, closing: console == nil) {
      var buffer = [UInt8](repeating: 0, count: 4096)
      var count: Int
      repeat { count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) } } while count < 0 && errno == EINTR
      for text in lines.append(count > 0 ? Data(buffer[0..<count]) : Data()) {
        life.heard(text)
        output(OutputLine(worker: name, stream: stream, text: text))
      }
      return count > 0
    } onEnd: {
      console?.close()
      life.outputEnded()
    }
  }

  /// Asks the worker to stop (SIGTERM). Does nothing once it has exited: the signal goes
  /// through a pidfd (a spawned worker's, which Foundation reaps), or by the pid of a worker
  /// this process reaps itself (a forked one) before it has, so never to another process that
  /// reused the pid.
  package func terminate() { life.end(with: SIGTERM) }

  /// Stops the worker at once (SIGKILL).
  package func kill() { life.end(with: SIGKILL) }

  /// Sends the worker `number` (SIGSTOP, SIGCONT: fault injection), as `terminate()` does.
  /// False when it had exited, and nothing was sent.
  @discardableResult
  package func send(signal number: Int32) -> Bool { life.signal(number) }

  /// Whether the worker ended at its memory limit: the OOM killer ended it in its memory
  /// cgroup, or, under `RLIMIT_DATA`, the Swift runtime said "Fatal error: failed to
  /// allocate" before it ended it. Waits for the end of its output, at most `milliseconds`:
  /// the connection that told the host of its end may come before its last lines. False at
  /// once for a worker with no memory limit.
  package func endedAtMemoryLimit(waitingAtMost milliseconds: Int32) -> Bool {
    life.endedAtMemoryLimit(waitingAtMost: milliseconds)
  }

  /// Whether the worker is running: it has not exited, or Foundation has not reaped it yet.
  package var isRunning: Bool { life.isRunning }

  /// Blocks until the worker has exited and been reaped, at most `milliseconds`; false if it
  /// has not by then. For a caller that must not suspend, such as a shutdown with a bound
  /// that promises no zombie.
  package func waitForExit(milliseconds: Int32) -> Bool { life.waitForExit(milliseconds: milliseconds) }

  /// A new descriptor that becomes readable when the spawned worker exits, for the caller to
  /// poll and close; nil once the worker has exited, and for a forked one. Copied from the
  /// pidfd opened at spawn, so a worker that exits and is reaped at once is still seen to have
  /// exited.
  func exitDescriptor() -> Int32? { life.exitDescriptor() }

  /// Ends the worker's standard input, which tells it the host is gone.
  package func closeInput() { life.closeInput() }

  /// What /proc names the host's end of the worker's console (`socket:[inode]`) while its
  /// input is open, for a test that checks nothing of it stays open after the worker ended.
  package var consoleIdentity: String? { life.consoleIdentity }

  /// Waits until the worker has exited and its output has reached its end (every line it
  /// wrote has gone to `output`), and says how it ended. By then the host holds no
  /// descriptor for it and it has been reaped.
  ///
  /// A process the worker started that inherited its standard output or error holds them
  /// open, and this waits for that process too.
  package func waitForExit() async -> Exit {
    await life.wait()
  }

  /// Blocks until the worker has exited and been reaped, its output has reached its end and
  /// the host holds no descriptor for it, at most `milliseconds`; false if it has not by
  /// then. A pidfd, or `waitForExit(milliseconds:)`, says the process has gone a little
  /// before the output watch has closed its console and pipe and the exit watch its pidfd.
  package func waitForEnd(milliseconds: Int32) -> Bool { life.waitForEnd(milliseconds: milliseconds) }

  /// Whether the worker has ended, as `waitForEnd(milliseconds:)` waits for.
  package var hasEnded: Bool { life.hasEnded }
}

/// What the host holds for one worker while it runs, how it ended, and who is waiting to
/// hear it. The end is known when the process has exited and been reaped (by Foundation, or
/// here for a forked worker) and both its outputs (console, error pipe) have reached their end.
private final class ProcessLife: Sendable {
  private struct State {
    /// The worker's standard input and output, until its input is ended.
    var console: WorkerConsole?
    var pid: pid_t = 0
    /// A spawned worker's pidfd, until its exit: Foundation reaps it, at a time of its own.
    var pidfd: Int32 = -1
    /// Whether this process reaps the worker (a forked one), whose exit it then watches.
    var reapedHere = false
    /// Whether the exit of a worker reaped here is watched: from when it is expected.
    var exitWatched = false
    /// Whether the worker was reaped here: its pid may name another process from then on.
    var reaped = false
    var exit: WorkerProcess.Exit?
    /// The limits the worker runs under, released when it exits.
    var limits: EnforcedLimits?
    /// The OOM kills in its memory cgroup, read as it exited, before the group is removed.
    var memoryKills = 0
    /// Whether it said "failed to allocate" (watched only under `RLIMIT_DATA`).
    var failedToAllocate = false
    /// Threads blocked in `endedAtMemoryLimit`, woken when its output has ended, or sooner, at
    /// its exit, when its memory group counted an OOM kill.
    var outputWaiters: [DispatchSemaphore] = []
    var openOutputs = 2
    /// Whether what the host held open for the running process (its input, its pidfd) is
    /// ended and closed: set after the exit, once they are.
    var released = false
    /// Tasks in `wait()`, resumed when the worker has ended.
    var waiters: [CheckedContinuation<WorkerProcess.Exit, Never>] = []
    /// Threads blocked in `waitForExit(milliseconds:)`, woken when the exit is recorded.
    var blockedWaiters: [DispatchSemaphore] = []
    /// Threads blocked in `waitForEnd(milliseconds:)`, woken when the worker has ended.
    var endWaiters: [DispatchSemaphore] = []

    /// Whether the worker has ended: exited and reaped, its output read to its end, and
    /// every descriptor the host held for it closed.
    var hasEnded: Bool { released && openOutputs == 0 }

    /// Who waits for the end, taken to be woken, once it has come.
    mutating func takeEndWaiters() -> Ending? {
      guard hasEnded, let exit else { return nil }
      defer { (waiters, endWaiters) = ([], []) }
      return (exit, waiters, endWaiters)
    }
  }

  /// How the worker ended, and who waited for it: tasks and blocked threads.
  typealias Ending = (exit: WorkerProcess.Exit, waiters: [CheckedContinuation<WorkerProcess.Exit, Never>], blocked: [DispatchSemaphore])

  private let state = Mutex(State())

  func setConsole(_ console: WorkerConsole) { state.withLock { $0.console = console } }

  /// Puts the started worker under `request`'s limits, before it has its launch; a worker
  /// forked into `joined` is in those groups already.
  func enforce(_ request: LimitRequest?, name: String, joined: JoinableGroups? = nil) throws {
    guard let request, !request.limits.isEmpty else { return }
    let pid = state.withLock { $0.pid }
    let enforced = try request.enforcer.enforce(request.limits, on: pid, name: name, joined: joined) { [weak self] number in
      self?.signal(number) ?? false
    }
    let late = state.withLock { state in
      if state.exit == nil { state.limits = enforced }
      return state.exit != nil
    }
    if late { enforced.release() }
  }

  /// What the Swift runtime prints before it aborts when an allocation fails.
  static let allocationFailure = "Fatal error: failed to allocate"

  /// Notes what a line of the worker's output says of its limits.
  func heard(_ line: String) {
    guard state.withLock({ $0.limits?.endsByFailedAllocation == true }), line.hasPrefix(Self.allocationFailure) else {
      return
    }
    // The verdict `endedAtMemoryLimit` waits for: told now, not once the output has ended.
    let waiting = state.withLock { state in
      state.failedToAllocate = true
      defer { state.outputWaiters = [] }
      return state.outputWaiters
    }
    for semaphore in waiting { semaphore.signal() }
  }

  /// See `WorkerProcess.endedAtMemoryLimit`. Event-driven: the end of the worker's output,
  /// which follows its death at once, wakes the wait; the OOM count is read from its cgroup,
  /// which stays until the host has reaped it.
  func endedAtMemoryLimit(waitingAtMost milliseconds: Int32) -> Bool {
    // Asked when a connection ended: the exit is expected, and its OOM count is told at once.
    watchExit()
    let ended = DispatchSemaphore(value: 0)
    // nil without a memory limit; whether the verdict is still to come.
    let mustWait = state.withLock { state -> Bool? in
      guard state.limits?.limits.memoryBytes != nil else { return nil }
      let isKnown = state.openOutputs == 0 || state.memoryKills > 0 || state.failedToAllocate
      if !isKnown { state.outputWaiters.append(ended) }
      return !isKnown
    }
    guard let mustWait else { return false }
    // A verdict known already is not waited for: no one would signal.
    if mustWait { _ = ended.wait(timeout: .now() + .milliseconds(Int(milliseconds))) }
    // The group first, then what the exit recorded: the exit notes the group's count before
    // it removes the group, so whichever moment this runs at, one of the two reads sees the
    // kill. (The other order missed it when the exit came between the reads: the outputs had
    // ended, so the verdict was known, but not yet recorded, and then the group was gone.)
    let groupKills = state.withLock { $0.limits }?.memoryKills() ?? 0
    let (kills, failed) = state.withLock { ($0.memoryKills, $0.failedToAllocate) }
    return failed || kills > 0 || groupKills > 0
  }

  /// The process is running (or already gone, if it died at once).
  /// The worker runs as `pid`, signalled through `pidfd`, which `recordExit` closes; or, when
  /// this process reaps it (`reapedHere`, with no pidfd), by `pid` until it has.
  func started(pid: pid_t, pidfd: Int32, reapedHere: Bool = false) {
    let late = state.withLock { state -> Int32 in
      state.pid = pid
      state.reapedHere = reapedHere
      if state.exit != nil { return pidfd }
      state.pidfd = pidfd
      return -1
    }
    if late >= 0 { Glibc.close(late) }
  }

  /// Watches for the exit of a worker reaped here, once: from when it is expected (its output
  /// ended, its input was closed, it was told to stop, a connection of it ended), so that the
  /// host holds its pidfd only then, not while it runs. The pid is still the worker's,
  /// unreaped, when the pidfd is opened.
  func watchExit() {
    let pid = state.withLock { state -> pid_t? in
      guard state.reapedHere, !state.exitWatched else { return nil }
      state.exitWatched = true
      return state.pid
    }
    guard let pid else { return }
    let pidfd = bulkhead_pidfd_open(pid)
    guard pidfd >= 0 else {
      // No descriptor to be had (the host at its limit): a thread waits by pid instead.
      DetachedThread.run { [self] in
        reap(pidfd: -1, pid: pid)
        pidfdClosed()
      }
      return
    }
    DescriptorWatch.exits.watch(pidfd) { [self] in
      reap(pidfd: pidfd, pid: pid)
      return false
    } onEnd: { [self] in
      pidfdClosed()
    }
  }

  /// Waits for the worker reaped here to exit (at once when its pidfd is readable), reaps it
  /// under the lock that a signal by pid takes, so that none reaches the pid once it may be
  /// another process's, and records the exit.
  private func reap(pidfd: Int32, pid: pid_t) {
    var exited: Int32 = 0
    var status: Int32 = 0
    var waited = bulkhead_child_wait(pidfd, pid, 0, &exited, &status)
    state.withLock { state in
      if waited == 0 { waited = bulkhead_child_wait(pidfd, pid, 1, &exited, &status) }
      state.reaped = true
    }
    recordExit(waited < 0 || exited == 0 ? .signalled(signal: waited < 0 ? SIGKILL : status) : .exited(status: status))
  }

  /// Writes `bytes` to the worker's standard input.
  func write(_ bytes: [UInt8]) throws {
    guard let console = state.withLock({ $0.console }) else {
      throw TransportError.system(call: "send", errno: EPIPE, context: "the standard input of a worker")
    }
    try console.write(bytes)
  }

  var consoleIdentity: String? { state.withLock { $0.console }?.identity }

  /// Ends the worker's input, which tells it to exit.
  func closeInput() {
    let console = state.withLock { state in
      defer { state.console = nil }
      return state.console
    }
    console?.closeInput()
    watchExit()
  }

  /// Sends `signal`, which ends the worker, and watches for its exit.
  func end(with signal: Int32) {
    _ = self.signal(signal)
    watchExit()
  }

  /// Sends `signal` to the worker if it is still there. Under the lock, so the pidfd cannot
  /// be closed (and its number reused), nor the worker reaped here, meanwhile.
  func signal(_ signal: Int32) -> Bool {
    state.withLock { state in
      if state.pidfd >= 0 { return bulkhead_pidfd_send_signal(state.pidfd, signal) == 0 }
      // By pid: a worker reaped here, before it is; or, under a kernel without pidfd_open, a
      // spawned one, while Foundation has not reported the exit.
      guard state.exit == nil, !state.reaped, state.pid > 0 else { return false }
      return Glibc.kill(state.pid, signal) == 0
    }
  }

  var isRunning: Bool { state.withLock { $0.exit == nil } }

  /// A copy of the pidfd, so that the exit, which closes the original, cannot close it under
  /// a poll; nil when there is none (the worker exited, or the kernel has no pidfds).
  func exitDescriptor() -> Int32? {
    let copy = state.withLock { state in state.pidfd >= 0 ? dup(state.pidfd) : -1 }
    return copy >= 0 ? copy : nil
  }

  /// Waits for the exit Foundation records once it has reaped the process: a pidfd turns
  /// readable earlier, while the process is still a zombie.
  func waitForExit(milliseconds: Int32) -> Bool {
    let reaped = DispatchSemaphore(value: 0)
    let hasExited = state.withLock { state in
      if state.exit == nil { state.blockedWaiters.append(reaped) }
      return state.exit != nil
    }
    return hasExited || reaped.wait(timeout: .now() + .milliseconds(Int(milliseconds))) == .success
  }

  func recordExit(_ exit: WorkerProcess.Exit) {
    // Read and kept before the group goes and the exit is told, so that whoever hears of it,
    // or asks meanwhile, can tell why.
    let limits = state.withLock { $0.limits }
    let kills = limits?.memoryKills() ?? 0
    // An OOM kill in its group is the verdict `endedAtMemoryLimit` waits for: told now, not
    // once the output has ended, which one slow reader of some worker's output can hold up.
    let verdictWaiters = state.withLock { state in
      state.memoryKills = kills
      defer { if kills > 0 { state.outputWaiters = [] } }
      return kills > 0 ? state.outputWaiters : []
    }
    for semaphore in verdictWaiters { semaphore.signal() }
    limits?.release()
    let (console, pidfd, blocked, reapedHere) = state.withLock { state in
      state.exit = exit
      defer {
        state.console = nil
        state.pidfd = -1
        state.blockedWaiters = []
      }
      return (state.console, state.pidfd, state.blockedWaiters, state.reapedHere)
    }
    for semaphore in blocked { semaphore.signal() }
    console?.closeInput()
    if pidfd >= 0 { Glibc.close(pidfd) }
    // Only now, with the pidfd closed, may whoever waits for the end hear of it; the pidfd of
    // a worker reaped here is its exit watch's, closed after this, and `pidfdClosed()` says
    // so then.
    if !reapedHere { pidfdClosed() }
  }

  /// The pidfd is closed, after the exit: the host holds nothing more of the process.
  func pidfdClosed() {
    Self.wake(
      state.withLock { state -> Ending? in
        state.released = true
        return state.takeEndWaiters()
      })
  }

  /// One of the worker's outputs reached its end; when both have, it has most likely exited.
  func outputEnded() {
    let (allEnded, blocked, ended) = state.withLock { state -> (Bool, [DispatchSemaphore], Ending?) in
      state.openOutputs -= 1
      guard state.openOutputs == 0 else { return (false, [], nil) }
      defer { state.outputWaiters = [] }
      return (true, state.outputWaiters, state.takeEndWaiters())
    }
    for semaphore in blocked { semaphore.signal() }
    Self.wake(ended)
    if allEnded { watchExit() }
  }

  /// Wakes those who waited for the worker's end.
  private static func wake(_ ended: Ending?) {
    guard let ended else { return }
    for semaphore in ended.blocked { semaphore.signal() }
    for waiter in ended.waiters { waiter.resume(returning: ended.exit) }
  }

  /// Blocks until the worker has ended (see `State.hasEnded`), at most `milliseconds`;
  /// whether it has.
  func waitForEnd(milliseconds: Int32) -> Bool {
    let ended = DispatchSemaphore(value: 0)
    let hasEnded = state.withLock { state in
      if !state.hasEnded { state.endWaiters.append(ended) }
      return state.hasEnded
    }
    return hasEnded || ended.wait(timeout: .now() + .milliseconds(Int(milliseconds))) == .success
  }

  /// Whether the worker has ended (see `State.hasEnded`).
  var hasEnded: Bool { state.withLock { $0.hasEnded } }

  func wait() async -> WorkerProcess.Exit {
    await withCheckedContinuation { continuation in
      let exit = state.withLock { state -> WorkerProcess.Exit? in
        if state.hasEnded, let exit = state.exit { return exit }
        state.waiters.append(continuation)
        return nil
      }
      if let exit { continuation.resume(returning: exit) }
    }
  }
}

/// A random secret made for one launch, which the worker proves it knows.
package struct LaunchSecret: Sendable, Equatable {
  package let text: String

  package init(text: String) { self.text = text }

  /// 32 random bytes, as hexadecimal.
  package static func random() -> LaunchSecret {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return LaunchSecret(text: bytes.map { String(format: "%02x", $0) }.joined())
  }

  /// Compares in time independent of where the first difference is.
  func matches(_ bytes: [UInt8]) -> Bool {
    let expected = Array(text.utf8)
    guard bytes.count == expected.count else { return false }
    return zip(bytes, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
  }
}

/// Splits a byte stream into lines, keeping an unfinished last line for later.
private final class LineSplitter: Sendable {
  private let pending = Mutex(Data())

  func append(_ data: Data) -> [String] {
    pending.withLock { pending in
      if data.isEmpty {
        defer { pending = Data() }
        return pending.isEmpty ? [] : [String(decoding: pending, as: UTF8.self)]
      }
      pending.append(data)
      var lines: [String] = []
      while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
        pending = Data(pending[(newline + 1)...])
      }
      return lines
    }
  }
}
