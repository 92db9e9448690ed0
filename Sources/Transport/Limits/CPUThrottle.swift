import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Holds workers to a share of one core where no cgroup can: a thread of the host reads each
/// worker's CPU time every `tick` and stops the worker (SIGSTOP) once it has used more than
/// its share, continuing it (SIGCONT) when the share has caught up (`ThrottleBucket` keeps
/// the account). The thread runs while a worker is throttled, and `lingeringTicks` after the
/// last has gone: a worker restarted, or the next of a pool, finds it running, and its start
/// does not wait for a thread to be made.
///
/// ```swift
/// let throttle = CPUThrottle()
/// let token = throttle.add(pid: pid, percent: 20) { worker.send(signal: $0) }
/// throttle.remove(token)
/// ```
package final class CPUThrottle: Sendable {
  /// How often the host looks: short enough that a stop lasts tens of milliseconds, long
  /// enough that the host's thread costs little.
  static let tick = Duration.milliseconds(20)
  /// The most CPU time a worker may bank while idle, as wall time at its share.
  static let window = Duration.milliseconds(100)
  /// How many ticks the thread goes on looking with no worker to throttle before it ends.
  static let lingeringTicks = 50

  private struct Worker {
    let clock: clockid_t
    let signal: @Sendable (Int32) -> Bool
    var bucket: ThrottleBucket
  }

  private struct State {
    var workers: [Int: Worker] = [:]
    var next = 0
    var running = false
  }

  private let state = Mutex(State())

  package init() {}

  /// Throttles process `pid` to `percent` of one core, signalling it through `signal` (the
  /// worker's pidfd). nil when its CPU clock cannot be read (it has exited).
  package func add(pid: pid_t, percent: Int, signal: @escaping @Sendable (Int32) -> Bool) -> Int? {
    var clock = clockid_t()
    guard clock_getcpuclockid(pid, &clock) == 0, let used = Self.cpu(clock) else { return nil }
    let bucket = ThrottleBucket(percent: percent, used: used, tick: Self.tick, window: Self.window)
    let (token, start) = state.withLock { state in
      defer { state.next += 1 }
      state.workers[state.next] = Worker(clock: clock, signal: signal, bucket: bucket)
      defer { state.running = true }
      return (state.next, !state.running)
    }
    if start { DetachedThread.run { [self] in run() } }
    return token
  }

  /// Stops throttling the worker `token` names, and continues it if it was stopped.
  package func remove(_ token: Int) {
    let worker = state.withLock { $0.workers.removeValue(forKey: token) }
    if let worker, worker.bucket.stopped { _ = worker.signal(SIGCONT) }
  }

  private func run() {
    var idleTicks = 0
    while true {
      // The throttle's own clock: it paces the host's look at its workers, and nothing waits on it.
      usleep(UInt32(Self.tick.components.attoseconds / 1_000_000_000_000))
      let signals = state.withLock { state -> [(@Sendable (Int32) -> Bool, Int32)]? in
        guard !state.workers.isEmpty else {
          idleTicks += 1
          guard idleTicks < Self.lingeringTicks else {
            state.running = false
            return nil
          }
          return []
        }
        idleTicks = 0
        var signals: [(@Sendable (Int32) -> Bool, Int32)] = []
        for (token, var worker) in state.workers {
          guard let now = Self.cpu(worker.clock) else { continue }
          if let number = worker.bucket.tick(used: now) { signals.append((worker.signal, number)) }
          state.workers[token] = worker
        }
        return signals
      }
      guard let signals else { return }
      for (signal, number) in signals { _ = signal(number) }
    }
  }

  /// The CPU time of a process's clock, in nanoseconds; nil once it has exited.
  private static func cpu(_ clock: clockid_t) -> Int64? {
    var time = timespec()
    guard clock_gettime(clock, &time) == 0 else { return nil }
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }
}
