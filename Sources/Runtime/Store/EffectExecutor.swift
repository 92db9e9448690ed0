import Dispatch
import Synchronization

/// Runs a store's effects one job at a time and knows when they have all stopped: every
/// effect finished or waiting on something outside (a clock, a socket), none queued, none on
/// its way to the store with an action.
///
/// A `TestStore` runs effects here so that it can wait for them to settle instead of sleeping
/// or yielding: after each step, every effect has reached its next suspension, so a test
/// clock advanced next sees every sleep that was due to start.
@_spi(Testing) public final class EffectExecutor: TaskExecutor, Sendable {
  private struct State {
    var jobs: [UnownedJob] = []
    var isRunning = false
    var sendsInFlight = 0
    var onChange: (@Sendable () -> Void)?
  }

  private let state = Mutex(State())
  private let queue = DispatchQueue(label: "bulkhead.effects")
  /// Fires whenever the executor may have settled, for `waitUntilSettled()`.
  private let settling = ChangeSignal()

  /// The executor of the effect running now, if it runs on one: a `TestClock` notes it for
  /// each sleep, so that after waking a sleep it can wait for what the effect does next.
  @TaskLocal static var current: EffectExecutor?

  public init() {}

  /// True when no effect job is queued or running and no effect is sending an action.
  public var isSettled: Bool {
    state.withLock { !$0.isRunning && $0.jobs.isEmpty && $0.sendsInFlight == 0 }
  }

  /// Returns once the executor is settled: every effect finished or waiting on something
  /// outside, no action on its way to the store, no work in a worker unsettled.
  ///
  /// ```swift
  /// store.send(.start)
  /// await executor.waitUntilSettled()  // the effect has reached its first sleep
  /// ```
  @_spi(Testing) public func waitUntilSettled() async {
    while true {
      let generation = settling.generation
      if isSettled { return }
      await settling.wait(after: generation)
    }
  }

  /// Called whenever the executor may have settled.
  package func onChange(_ body: @escaping @Sendable () -> Void) {
    state.withLock { $0.onChange = body }
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let startRunner = state.withLock { state -> Bool in
      state.jobs.append(job)
      defer { state.isRunning = true }
      return !state.isRunning
    }
    if startRunner { queue.async { self.runJobs() } }
  }

  private func runJobs() {
    while let job = nextJob() {
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
    state.withLock { $0.onChange }?()
    settling.fire()
  }

  private func nextJob() -> UnownedJob? {
    state.withLock { state in
      guard !state.jobs.isEmpty else {
        state.isRunning = false
        return nil
      }
      return state.jobs.removeFirst()
    }
  }

  /// An effect is on its way to the store with an action.
  func sendDidStart() {
    state.withLock { $0.sendsInFlight += 1 }
  }

  /// The store processed the action, and the effect is back on this executor.
  func sendDidFinish() {
    state.withLock { $0.sendsInFlight -= 1 }
  }

  /// Work elsewhere that these effects stand for — effect bodies in a worker process — is
  /// running: the executor is not settled until `remoteWorkDidSettle`.
  package func remoteWorkDidStart() {
    sendDidStart()
  }

  /// The work elsewhere has settled too.
  package func remoteWorkDidSettle() {
    let onChange = state.withLock { state in
      state.sendsInFlight -= 1
      return state.onChange
    }
    onChange?()
    settling.fire()
  }
}
