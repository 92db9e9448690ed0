import CSystem
import Foundation
import Synchronization

/// What a worker learns from its host at start: where to connect, the secret to prove
/// itself with, and a brief, one line of the host's own that the transport passes on unread
/// (the boundaries a worker places in workers of its own). Read from standard input, which
/// then stays open: when it closes, the host is gone and the worker exits.
///
/// ```swift
/// let launch = try WorkerLaunch.receive()
/// let connection = try launch.connect()
/// ```
package struct WorkerLaunch: Sendable {
  package let socketPath: String
  package let secret: LaunchSecret
  /// The host's line for the worker, as written; empty when it has nothing to say.
  package let brief: String

  /// Reads the launch from standard input, and arranges for this process to exit when the
  /// host dies: by the parent-death signal, and by end of file on standard input.
  ///
  /// Call it first thing, on the main thread. It also undoes what a worker inherits from how
  /// it was started and must not keep: the signal mask of the host's spawn thread (which
  /// blocks every signal, as Dispatch's threads do), and SIGTERM ignored by a host that
  /// handles it itself; otherwise `WorkerProcess.terminate()` would do nothing.
  ///
  /// The parent-death signal is SIGKILL, which no mask or handler can hold back. If the host
  /// dies before `prctl` runs here, the signal is never sent; end of file on standard input
  /// covers that case: the host's end of it (a socket that is also this worker's standard
  /// output, `WorkerConsole`) is open only in the host (close-on-exec, and Foundation closes
  /// every other descriptor in the children it starts), so the kernel closes it when the host
  /// dies, whenever that is, and end of file stays. The thread that
  /// reads standard input sees it, at the latest, as soon as it starts.
  ///
  /// A worker template passes `watchingInput: false`: it starts no thread to read its input,
  /// and watches it itself (`TemplateServer`), so that it has no thread to lose when it forks.
  package static func receive(watchingInput: Bool = true) throws(TransportError) -> WorkerLaunch {
    // A worker forked from a template starts over, whatever the template's launch was.
    launchState.store(LaunchState.launching, ordering: .releasing)
    _ = bulkhead_set_parent_death_signal(SIGKILL)
    var none = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, nil)
    var terminate = sigaction()
    if sigaction(SIGTERM, nil, &terminate) == 0, let handler = terminate.__sigaction_handler.sa_handler,
      unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    {
      signal(SIGTERM, SIG_DFL)
    }
    // A host writes the launch at once; a pipe held open with nothing on it is no host.
    var input = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
    guard poll(&input, 1, Int32(launchDeadline * 1_000)) > 0 else {
      throw .authenticationFailed(.noLaunch(seconds: Int(launchDeadline)))
    }
    guard let path = readLine(strippingNewline: true), let secret = readLine(strippingNewline: true),
      let brief = readLine(strippingNewline: true)
    else {
      throw .authenticationFailed(.launchCutShort)
    }
    guard path.hasPrefix("/"), !path.contains(where: \.isControl), isLaunchSecret(secret),
      !brief.contains(where: \.isControl)
    else {
      throw .authenticationFailed(.notALaunch)
    }
    let launch = WorkerLaunch(socketPath: path, secret: LaunchSecret(text: secret), brief: brief)
    guard watchingInput else { return launch }
    // End of file means the host is gone or let this worker go. Before the worker has
    // proved itself, the attempt fails on its own and says why, or `connect` sees the mark
    // and exits: exiting here as well would race the attempt's message.
    DetachedThread.run {
      var byte: UInt8 = 0
      while read(STDIN_FILENO, &byte, 1) > 0 {}
      let (marked, state) = launchState.compareExchange(
        expected: LaunchState.launching, desired: LaunchState.inputEnded, ordering: .acquiringAndReleasing)
      if !marked, state == LaunchState.connected { exit(0) }
    }
    return launch
  }

  /// Connects to the host and proves this worker's identity.
  package func connect() throws(TransportError) -> FramedConnection {
    let connection = FramedConnection(try UnixSocket.connect(to: socketPath))
    try Handshake.introduce(on: connection, secret: secret)
    let (marked, state) = launchState.compareExchange(
      expected: LaunchState.launching, desired: LaunchState.connected, ordering: .acquiringAndReleasing)
    if !marked, state == LaunchState.inputEnded { exit(0) }
    return connection
  }

  /// How long a worker waits for its launch on standard input.
  static let launchDeadline: TimeInterval = 30

  /// Whether `text` has the form of `LaunchSecret.random()`'s: 64 hexadecimal digits.
  private static func isLaunchSecret(_ text: String) -> Bool {
    text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
  }
}

/// Where this worker's launch is: still launching, proved to its host at least once, or
/// with its input ended before that.
private enum LaunchState {
  static let launching = 0
  static let connected = 1
  static let inputEnded = 2
}

private let launchState = Atomic<Int>(LaunchState.launching)

extension Character {
  fileprivate var isControl: Bool { unicodeScalars.contains { $0.properties.generalCategory == .control } }
}
