import CSystem
#if canImport(Glibc)
  import Glibc
#endif

/// The serving thread of an `ActorListener`: one `poll` over the listening socket and every
/// connection. It accepts, hands each connection's whole frames to its system as they arrive,
/// runs the calls they bring (it is the executor of every system it reads, so a call does not
/// wait for a thread of the cooperative pool, which the host's own work may hold), and closes
/// the connections that break the listener's limits.
final class ListenerLoop: @unchecked Sendable {
  // Safe: `ActorListener.init` makes it and hands it to the serving thread, which alone uses
  // it from then on.

  private let listener: UnixListener
  private let limits: ActorListener.Limits
  private let wakeup: Int32
  private let host: @Sendable (SocketActorSystem) -> Void
  private let report: @Sendable (ListenerEvent) -> Void
  /// Runs the jobs of every system served, on this thread, between reads.
  private let executor = ConnectionThread()
  /// The connections being served, by descriptor.
  private var connections: [Int32: PolledConnection] = [:]
  /// When accepting may be tried again after it failed; nil while it works.
  private var acceptResumes: ContinuousClock.Instant?

  /// How long accepting pauses after it failed: the connection that could not be accepted
  /// stays readable, and polling it again at once would spin.
  static let acceptPause = Duration.milliseconds(100)
  /// How many connections one wake-up accepts, so that those already served are read between.
  static let acceptBatch = 64
  /// The read buffer of a connection: requests are small, and an idle connection holds none.
  static let bufferCapacity = 4 << 10

  init(
    listener: UnixListener, limits: ActorListener.Limits, wakeup: Int32,
    host: @escaping @Sendable (SocketActorSystem) -> Void, report: @escaping @Sendable (ListenerEvent) -> Void
  ) {
    self.listener = listener
    self.limits = limits
    self.wakeup = wakeup
    self.host = host
    self.report = report
  }

  /// Serves until `isStopped()`, then ends every connection and closes the listener, which
  /// removes its socket file.
  func run(until isStopped: () -> Bool) {
    executor.runJobsOnThisThread()
    defer {
      for connection in connections.values { connection.end(nil) }
      connections = [:]
      // What is still queued, or comes later, goes to the global executor.
      executor.stop()
      listener.close()
    }
    while !isStopped() {
      // The calls the last reads started, and the answers they wait for.
      executor.runJobs()
      let now = ContinuousClock.now
      closeLate(at: now)
      let accepting = acceptResumes.map { $0 <= now } ?? true
      var descriptors = [
        pollfd(fd: wakeup, events: Int16(POLLIN), revents: 0),
        pollfd(fd: executor.wakeup, events: Int16(POLLIN), revents: 0),
        pollfd(fd: accepting ? listener.descriptor : -1, events: Int16(POLLIN), revents: 0),
      ]
      descriptors += connections.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      let wait = nextDue(accepting: accepting).map { max(.zero, now.duration(to: $0)).roundedUpMilliseconds } ?? -1
      if poll(&descriptors, nfds_t(descriptors.count), wait) < 0 {
        let error = errno
        guard error == EINTR || error == ENOMEM else { return }
        // Out of memory for the moment: try again shortly rather than spin.
        if error == ENOMEM { usleep(UInt32(Self.acceptPause.wholeMilliseconds) * 1_000) }
        continue
      }
      if descriptors[0].revents != 0 { _ = bulkhead_wakeup_clear(wakeup) }
      // Connections first: those that ended leave room for the ones waiting to be accepted.
      read(descriptors.dropFirst(3))
      if descriptors[2].revents != 0 { acceptWaiting() }
    }
  }

  /// Reads the connections that `poll` found ready in `descriptors`, and ends those that
  /// ended.
  private func read(_ descriptors: ArraySlice<pollfd>) {
    let arrived = ContinuousClock.now
    for ready in descriptors where ready.revents != 0 {
      guard let connection = connections[ready.fd] else { continue }
      _ = readOrEnd(connection, at: ready.fd, arrived)
    }
  }

  /// Reads what `connection` holds; if it ended, ends it and forgets it. Says whether it ended.
  private func readOrEnd(_ connection: PolledConnection, at descriptor: Int32, _ now: ContinuousClock.Instant) -> Bool {
    guard case let .ended(error) = connection.readAvailable(at: now) else { return false }
    if let error { report(.dropped(peer: connection.peer, error: error)) }
    connection.end(error)
    connections[descriptor] = nil
    return true
  }

  /// Reads whatever the connections hold, without waiting: at the limit, a connection whose
  /// client has just closed it must make room before the next one is refused.
  private func readWithoutWaiting() {
    var descriptors = connections.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    guard poll(&descriptors, nfds_t(descriptors.count), 0) > 0 else { return }
    read(descriptors[...])
  }

  /// The first instant something is due: a connection's request or one of its calls, or the
  /// end of a pause in accepting.
  private func nextDue(accepting: Bool) -> ContinuousClock.Instant? {
    var earliest = accepting ? nil : acceptResumes
    func consider(_ instant: ContinuousClock.Instant?) {
      if let instant, earliest.map({ instant < $0 }) ?? true { earliest = instant }
    }
    for connection in connections.values {
      consider(connection.due)
      consider(connection.handlers.nextDeadline())
    }
    return earliest
  }

  /// Closes the connections that are overdue, and fails their calls that are. What an
  /// overdue connection holds is read first: this thread may have been kept from running
  /// while the rest of a request came in time.
  private func closeLate(at now: ContinuousClock.Instant) {
    for (descriptor, connection) in connections {
      connection.handlers.expire(now)
      guard connection.due <= now, !readOrEnd(connection, at: descriptor, now), connection.due <= now else { continue }
      let (event, waited) = connection.overdue
      report(event)
      connection.end(.timedOut(path: listener.path, milliseconds: waited.wholeMilliseconds))
      connections[descriptor] = nil
    }
  }

  /// Accepts the connections waiting, up to a batch.
  private func acceptWaiting() {
    for _ in 0..<Self.acceptBatch {
      let socket: UnixSocket
      do {
        socket = try listener.accept(timeout: 0)
      } catch .timedOut {
        return
      } catch {
        if acceptResumes == nil { report(.acceptFailed(error)) }
        acceptResumes = .now + Self.acceptPause
        return
      }
      acceptResumes = nil
      serve(socket)
    }
  }

  /// Serves `socket`, or refuses it: a peer of another user, or one connection too many.
  private func serve(_ socket: UnixSocket) {
    let peer = try? socket.peerCredentials()
    if connections.count >= limits.maximumConnections { readWithoutWaiting() }
    let refusal: ListenerEvent.Refusal? =
      if peer?.uid != getuid() {
        peer.map { .otherUser(uid: $0.uid, expected: getuid()) } ?? .unknownPeer
      } else if connections.count >= limits.maximumConnections {
        .tooManyConnections(open: connections.count)
      } else {
        nil
      }
    if let refusal {
      report(.refused(peer: peer?.pid ?? 0, reason: refusal))
      return socket.close()
    }
    // A client that reads none of its replies holds a writer no longer than a request may take.
    try? socket.setSendTimeout(milliseconds: limits.readDeadline.wholeMilliseconds)
    let descriptor = socket.descriptor
    let system = SocketActorSystem(
      connection: FramedConnection(socket, maximumPayload: limits.largestRequest, bufferCapacity: Self.bufferCapacity),
      reading: .byPoller, sharing: executor)
    host(system)
    guard let serving = system.takeServing() else { return system.close() }
    connections[descriptor] = PolledConnection(
      system: system, serving: serving, peer: peer?.pid ?? 0, limits: limits)
  }
}
