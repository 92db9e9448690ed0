import CSystem
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One thread that reads the connections of many `SocketActorSystem`s at once (epoll): it
/// hands each whole frame to its system as it arrives, runs the calls the frames bring, and
/// is the executor of every system it reads (its `lane` that of their actors bound to the
/// connection, `ConnectionBound`). The host reads every worker's effects connection here: a
/// thread per connection cost it a thread and a wake-up descriptor per worker.
///
/// What a frame starts runs on this thread, so it must not block: every other connection
/// waits meanwhile. Whoever hands a connection over moves what may block (a write to a peer
/// that stopped reading, a wait for a process) off it; `isCurrent` tells where code runs.
///
/// ```swift
/// let system = SocketActorSystem(connection: connection, watchedBy: .effects)
/// ```
package final class ConnectionWatch: Sendable {
  /// The watch of the workers' effects connections, in the host.
  package static let effects = ConnectionWatch()

  /// Runs the jobs of every system read here, on this thread, between reads.
  let executor: ConnectionThread
  /// -1 when this process could have none: then each system reads its connection on a
  /// thread of its own (`isAvailable`).
  private let epoll: Int32
  private let state = Mutex(State())

  /// One connection read here.
  private struct Watched: Sendable {
    /// Held here: its reading half only holds it weakly.
    let system: SocketActorSystem
    let reader: ConnectionHalf
    let handlers: ConnectionThread.Handlers
    /// The socket's, open as long as `system` holds its writing half.
    let descriptor: Int32
  }

  private struct State {
    var next: UInt64 = 1
    var watched: [UInt64: Watched] = [:]
    /// The shortest call timeout of the systems read so far: a call made after a check of
    /// the deadlines falls due no sooner than that after it.
    var shortestTimeout: Duration?
  }

  /// The token of the executor's wake-up in the epoll set; connections count from 1.
  private static let wakeupToken: UInt64 = 0

  private init() {
    let executor = ConnectionThread()
    var epoll = bulkhead_epoll_create()
    if epoll >= 0 && bulkhead_epoll_add(epoll, executor.wakeup, Self.wakeupToken) != 0 {
      close(epoll)
      epoll = -1
    }
    self.executor = executor
    self.epoll = epoll
    guard epoll >= 0 else {
      executor.stop()
      return
    }
    // The watch lives as long as the process: a static, never released.
    DetachedThread.run { [self] in serve() }
  }

  /// Whether the watch reads connections; where epoll cannot be had, it reads none.
  var isAvailable: Bool { epoll >= 0 }

  /// Whether the caller runs on the watch's thread, where nothing may block.
  package var isCurrent: Bool { executor.isCurrent }

  /// Reads `serving`, the reading half of `system`, from now on, until the connection ends;
  /// then calls the end handler, on this thread.
  func read(_ system: SocketActorSystem, _ serving: SocketActorSystem.Serving) {
    let descriptor = serving.reader.connection.socket.descriptor
    let (token, shortened) = state.withLock { state in
      defer { state.next += 1 }
      state.watched[state.next] = Watched(
        system: system, reader: serving.reader, handlers: serving.handlers, descriptor: descriptor)
      let shortened = state.shortestTimeout.map { system.callTimeout < $0 } ?? true
      if shortened { state.shortestTimeout = system.callTimeout }
      return (state.next, shortened)
    }
    // A thread waiting with no deadline, or a later one, must count with this system's calls.
    if shortened { _ = bulkhead_wakeup_signal(executor.wakeup) }
    // Added after the entry is in place: the thread may find it ready at once.
    guard bulkhead_epoll_add(epoll, descriptor, token) != 0 else { return }
    guard let watched = state.withLock({ $0.watched.removeValue(forKey: token) }) else { return }
    watched.handlers.end(.system("epoll_ctl", "socket \(descriptor)"))
  }

  private func serve() {
    executor.runJobsOnThisThread()
    var tokens = [UInt64](repeating: 0, count: 64)
    var calls = CallDeadlines()
    while true {
      // The calls the last reads started, and the answers they wait for: queued by this
      // thread, which signals no wake-up for them.
      executor.runQueuedJobs()
      let now = ContinuousClock.now
      let shortestTimeout = state.withLock { $0.shortestTimeout }
      if let due = calls.due(shortestTimeout: shortestTimeout), due <= now {
        calls.checked(at: now, earliest: expireCalls(at: now))
      }
      let wait = calls.due(shortestTimeout: shortestTimeout).map { max(.zero, now.duration(to: $0)).roundedUpMilliseconds }
      let count = tokens.withUnsafeMutableBufferPointer {
        bulkhead_epoll_wait(epoll, $0.baseAddress, Int32($0.count), wait ?? -1)
      }
      guard count >= 0 else {
        if errno == EINTR { continue }
        return
      }
      for token in tokens.prefix(Int(count)) {
        if token == Self.wakeupToken { executor.runJobs() } else { read(token) }
      }
    }
  }

  /// Takes what the connection of `token` holds, without waiting, and hands each whole frame
  /// to its system; ends the connection when it ended or must end.
  private func read(_ token: UInt64) {
    guard let watched = state.withLock({ $0.watched[token] }) else { return }
    let connection = watched.reader.connection
    _ = connection.readAvailable()
    while connection.isReadyToReceive {
      guard case let .ended(error) = watched.handlers.handleNext(of: connection) else { continue }
      // Removed before its descriptor can close, so that its number, reused, is not taken for it.
      _ = bulkhead_epoll_remove(epoll, watched.descriptor)
      _ = state.withLock { $0.watched.removeValue(forKey: token) }
      return watched.handlers.end(error)
    }
  }

  /// Fails the calls in flight that are overdue; the earliest deadline of those left.
  private func expireCalls(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
    let handlers = state.withLock { $0.watched.values.map(\.handlers) }
    var earliest: ContinuousClock.Instant?
    for handler in handlers {
      handler.expire(now)
      if let deadline = handler.nextDeadline(), earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
    }
    return earliest
  }
}

/// When the watch must next look for overdue calls, without asking every connection at each
/// wake-up: at the earliest deadline the last check found, or, for a call made since, the
/// shortest call timeout after that check (the soonest such a call can fall due).
private struct CallDeadlines {
  private var lastCheck = ContinuousClock.now
  private var earliest: ContinuousClock.Instant?

  func due(shortestTimeout: Duration?) -> ContinuousClock.Instant? {
    let forNewCalls = shortestTimeout.map { lastCheck + $0 }
    guard let earliest else { return forNewCalls }
    return forNewCalls.map { min($0, earliest) } ?? earliest
  }

  mutating func checked(at now: ContinuousClock.Instant, earliest: ContinuousClock.Instant?) {
    lastCheck = now
    self.earliest = earliest
  }
}
