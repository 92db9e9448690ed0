import Bulkhead
import Dispatch
internal import Transport

/// The composition's warm pool: workers started from the template ahead of need, connected
/// and greeted, serving no boundary. A boundary that retires its worker with its child
/// (`ifLet`, `ifCaseLet`, a presented destination) claims one when its child is next
/// presented: one request on a connection already open, then the pool starts a replacement in
/// the background. Its size is the placement's `warm N` line.
///
/// Its bookkeeping is `WarmPoolMachine`, behind one lock; starts and closes happen outside it.
final class WarmPool: Sendable {
  private let machine: Locked<WarmPoolMachine<WarmWorker>>
  private let start: @Sendable () throws -> WarmWorker
  private let report: @Sendable (String) -> Void
  /// Who waits for the pool to settle (`waitUntilSettled`).
  private let waiters = Locked<[DispatchSemaphore]>([])

  /// Starts `size` warm workers with `start`, one after another on this thread: one that
  /// cannot start throws, and the composition does not start. `report` hears what the pool
  /// gives up.
  init(
    size: Int, start: @escaping @Sendable () throws -> WarmWorker, report: @escaping @Sendable (String) -> Void
  ) throws {
    machine = Locked(WarmPoolMachine(size: size))
    self.start = start
    self.report = report
    for command in machine.withLock({ $0.open() }) where command == .start {
      let worker: WarmWorker
      do {
        worker = try start()
      } catch {
        perform(machine.withLock { $0.failedToStart("\(error)") }, inBackground: false)
        close()
        throw error
      }
      watch(worker)
      perform(machine.withLock { $0.started(worker) })
    }
  }

  /// The pids of the idle workers, oldest first.
  var idlePIDs: [Int32] { machine.withLock { $0.idle.map(\.pid) } }

  /// A worker for `plan`'s boundary from the pool, told which boundary it now serves; nil
  /// when the pool has none idle (the caller starts one of its own). An idle worker found
  /// dead is let go and the next one tried; a worker that refuses the boundary throws, as a
  /// worker started for it would.
  ///
  /// Its replacement is forked once the worker has answered its first request (or was given
  /// up): a fork meanwhile would take a core from the presentation on a two-core machine.
  func claim(_ plan: WorkerLink.Plan) throws -> WorkerLink? {
    while true {
      guard let worker = machine.withLock({ $0.take() }) else { return nil }
      do {
        let link = try WorkerLink(plan, claiming: worker)
        link.whenFirstAnswered { [self] in perform(machine.withLock { $0.replenish() }) }
        return link
      } catch let error as DistributionError {
        perform(machine.withLock { $0.replenish() })
        guard case let .workerUnavailable(_, reason) = error, reason.meansGone else { throw error }
      } catch {
        perform(machine.withLock { $0.replenish() })
        throw error
      }
    }
  }

  /// Waits until every place of the pool holds an idle worker (or the pool closed or gave
  /// up), at most `timeout`; whether it did.
  func waitUntilSettled(timeout: Duration) -> Bool {
    let waiter = DispatchSemaphore(value: 0)
    let settled = machine.withLock { machine in
      if !machine.isSettled { waiters.withLock { $0.append(waiter) } }
      return machine.isSettled
    }
    guard !settled else { return true }
    return waiter.wait(timeout: .now() + .milliseconds(Int(timeout.wholeMilliseconds))) == .success
  }

  /// Lets every idle worker go and starts no more; the roster sees their processes out.
  func close() {
    perform(machine.withLock { $0.close() })
  }

  /// Watches `worker` for its exit, so that an idle one that dies (`kill -9`) is let go and
  /// replaced without waiting for a boundary to find it dead.
  private func watch(_ worker: WarmWorker) {
    guard let process = worker.process as? WorkerProcess else { return }
    Task.detached { [self] in
      _ = await process.waitForExit()
      perform(machine.withLock { $0.exited(worker) })
    }
  }

  /// Does what the machine decided, outside its lock: starts on threads of their own, unless
  /// `inBackground` is false.
  private func perform(_ commands: [WarmPoolMachine<WarmWorker>.Command], inBackground: Bool = true) {
    for command in commands {
      switch command {
      case .start:
        guard inBackground else { continue }
        DetachedThread.run { [self] in
          do {
            let worker = try start()
            watch(worker)
            perform(machine.withLock { $0.started(worker) })
          } catch {
            perform(machine.withLock { $0.failedToStart("\(error)") })
          }
        }
      case let .close(worker):
        worker.close()
      case let .giveUp(reason):
        report(
          "the warm pool gave up after \(WarmPoolMachine<WarmWorker>.maximumFailures) failed starts in a row "
            + "(the last: \(reason)); presented children start workers of their own")
      }
    }
    wakeWaitersIfSettled()
  }

  private func wakeWaitersIfSettled() {
    guard machine.withLock({ $0.isSettled }) else { return }
    let woken = waiters.withLock { waiters in
      defer { waiters = [] }
      return waiters
    }
    for waiter in woken { waiter.signal() }
  }
}

extension DistributionError.WorkerFailure {
  /// Whether the worker was gone (it died, or its connection ended) rather than refusing.
  var meansGone: Bool {
    switch self {
    case .unreachable, .closedBeforeGreeting, .didNotConnect, .didNotGreet, .gaveUp: true
    case .shuttingDown, .noGreeting, .refused, .servesAnother: false
    }
  }
}
