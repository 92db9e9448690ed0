import CSystem
import Dispatch
#if canImport(Glibc)
  import Glibc
#endif
import Synchronization

/// Offers distributed actors to other processes of this user on a socket path: each connection
/// from a process of the same user gets a `SocketActorSystem` of its own, on which `host`
/// places the actors it offers; connections from other users are refused.
///
/// One thread serves every connection (`ListenerLoop`): it accepts them, reads each one's
/// requests as they arrive and runs the calls, which should not block it for long. A
/// connection costs a descriptor and a few kilobytes, not a thread, and `limits` bound what
/// clients can hold: a connection that sends half a request is closed at the read deadline,
/// and one that sends nothing at the idle deadline. What the listener refuses or closes on
/// its own, it reports to `onEvent`.
///
/// ```swift
/// let listener = try ActorListener(path: directory.path(for: "control")) { system in
///   _ = system.hosting(Control.id) { Control(actorSystem: $0) }
/// }
/// ```
package final class ActorListener: Sendable {
  /// What the listener allows its clients.
  package struct Limits: Sendable, Equatable {
    /// How long a connection may take to send a request whole once its first byte came; past
    /// it, the connection is closed. It also bounds how long a reply may wait for a client
    /// that reads nothing.
    package var readDeadline: Duration
    /// How long a connection may send nothing, from when it connected or its previous request
    /// came; past it, the connection is closed. Longer than the read deadline: a client that
    /// holds its connection between requests is using it, not stuck in one.
    package var idleDeadline: Duration
    /// How many connections are served at once; one more is refused as it is accepted.
    package var maximumConnections: Int
    /// The largest request, in bytes: the actors a listener offers take small arguments.
    package var largestRequest: Int

    package init(
      readDeadline: Duration, idleDeadline: Duration = .seconds(300), maximumConnections: Int,
      largestRequest: Int = 64 << 10
    ) {
      self.readDeadline = readDeadline
      self.idleDeadline = idleDeadline
      self.maximumConnections = maximumConnections
      self.largestRequest = largestRequest
    }

    /// Five seconds per request, five minutes idle; 1,024 connections at once, or half the descriptors this
    /// process may open if that is fewer, so that a client past the limit is refused with a
    /// reason rather than left waiting for a descriptor, and the rest stay for the workers.
    package static var standard: Limits {
      var descriptors = rlimit()
      getrlimit(Int32(RLIMIT_NOFILE.rawValue), &descriptors)
      // No limit (all ones) halves to more than 1,024 all the same.
      return Limits(readDeadline: .seconds(5), maximumConnections: min(1_024, Int(clamping: descriptors.rlim_cur / 2)))
    }
  }

  package let path: String
  /// Set by `stop()`; the serving thread ends when it sees it.
  private let isStopped = Atomic<Bool>(false)
  /// Wakes the serving thread for `stop()`.
  private let wakeup: Int32
  /// Left when the serving thread has closed every connection and the socket.
  private let served = DispatchGroup()
  private let servingThread = Atomic<UInt>(0)

  /// Listens on `path` and serves its connections on a thread of its own until `stop()`.
  package init(
    path: String, limits: Limits = .standard, onEvent: @escaping @Sendable (ListenerEvent) -> Void = { _ in },
    host: @escaping @Sendable (SocketActorSystem) -> Void
  ) throws(TransportError) {
    let wakeup = bulkhead_wakeup_create()
    guard wakeup >= 0 else { throw .system("eventfd", "the listener at \(path)") }
    let listener: UnixListener
    do {
      listener = try UnixListener(path: path)
    } catch {
      close(wakeup)
      throw error
    }
    self.path = listener.path
    self.wakeup = wakeup
    let loop = ListenerLoop(listener: listener, limits: limits, wakeup: wakeup, host: host, report: onEvent)
    served.enter()
    // The thread holds the listener until `stop()` ends it.
    DetachedThread.run { [self] in
      servingThread.store(UInt(pthread_self()), ordering: .relaxed)
      loop.run { isStopped.load(ordering: .acquiring) }
      served.leave()
    }
  }

  deinit { close(wakeup) }

  /// Stops accepting, ends every connection, and removes the socket file; returns once they
  /// are gone (at once when called from the serving thread, which does it next).
  package func stop() {
    isStopped.store(true, ordering: .releasing)
    _ = bulkhead_wakeup_signal(wakeup)
    guard servingThread.load(ordering: .relaxed) != UInt(pthread_self()) else { return }
    served.wait()
  }
}
