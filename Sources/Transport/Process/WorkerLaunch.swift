import CSystem
import Foundation
import Synchronization

/// What a worker learns from its host at start: how it gets its connections (where to
/// connect, and the secret to prove itself with; or that its template handed them over), and
/// a brief, one line of the host's own that the transport passes on unread (the boundaries a
/// worker places in workers of its own). Read from standard input, which then stays open: when
/// it closes, the host is gone and the worker exits.
///
/// ```swift
/// let launch = try WorkerLaunch.receive()
/// let control = try launch.connect(.control)
/// let effects = try launch.connect(.effects)
/// ```
package struct WorkerLaunch: Sendable {
  /// How a worker gets its connections to its host.
  package enum Connections: Sendable, Equatable {
    /// It connects to the host's listener at `socketPath` and proves itself with `secret`.
    case listener(socketPath: String, secret: LaunchSecret)
    /// Its template handed them over with its fork (`HandedConnections`).
    case handed
  }

  package let connections: Connections
  /// The host's line for the worker, as written; empty when it has nothing to say.
  package let brief: String

  /// What the first line of a launch says instead of a socket path for `.handed`.
  private static let handedMark = "handed"

  /// The launch as the host writes it on the worker's standard input: three lines.
  package static func text(_ connections: Connections, brief: String) -> [UInt8] {
    switch connections {
    case let .listener(socketPath, secret): Array("\(socketPath)\n\(secret.text)\n\(brief)\n".utf8)
    case .handed: Array("\(handedMark)\n\n\(brief)\n".utf8)
    }
  }

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
    let connections: Connections
    if path == handedMark, secret.isEmpty {
      connections = .handed
    } else if path.hasPrefix("/"), !path.contains(where: \.isControl), isLaunchSecret(secret) {
      connections = .listener(socketPath: path, secret: LaunchSecret(text: secret))
    } else {
      throw .authenticationFailed(.notALaunch)
    }
    guard !brief.contains(where: \.isControl) else { throw .authenticationFailed(.notALaunch) }
    let launch = WorkerLaunch(connections: connections, brief: brief)
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

  /// A worker's connections to its host.
  package enum HostConnection: Sendable {
    /// The one that carries the host's requests.
    case control
    /// The one that carries the worker's effects.
    case effects
  }

  /// This worker's connection `which` to its host: connected and proved, or, for a forked
  /// worker, taken from the descriptor its template handed it. A connecting worker takes
  /// `.control` first: the host tells the two apart by their order.
  package func connect(_ which: HostConnection = .control) throws(TransportError) -> FramedConnection {
    let connection: FramedConnection
    switch connections {
    case let .listener(socketPath, secret):
      connection = FramedConnection(try UnixSocket.connect(to: socketPath))
      try Handshake.introduce(on: connection, secret: secret)
    case .handed:
      connection = try HandedConnections.adopt(which)
    }
    Self.markConnected()
    return connection
  }

  /// Notes that the host has this worker's connection; exits if its input has ended already
  /// (the watch of it left that to here).
  private static func markConnected() {
    let (marked, state) = launchState.compareExchange(
      expected: LaunchState.launching, desired: LaunchState.connected, ordering: .acquiringAndReleasing)
    if !marked, state == LaunchState.inputEnded { exit(0) }
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
