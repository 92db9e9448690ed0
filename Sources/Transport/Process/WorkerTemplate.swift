import CSystem
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A worker template (a "zygote", as Android and Chromium call theirs): a worker process that
/// has loaded its code once and forks a new worker for each request, so that a worker starts
/// without `exec` and shares the template's pages copy-on-write.
///
/// The template is started like any worker (its launch on standard input, the handshake with
/// its secret and pid); then each request carries the new worker's standard input, output and
/// error and its two connections as descriptors (SCM_RIGHTS), and the answer its pidfd. A new worker is the host's
/// child, not the template's (CLONE_PARENT): the host reaps it, its parent-death signal follows
/// the host, and it goes on when the template dies.
///
/// ```swift
/// let template = try WorkerTemplate(
///   executable: workerURL, arguments: ["--bulkhead-zygote", "timers"], directory: directory,
///   within: .seconds(10)) { line in print("[\(line.worker)] \(line.text)") }
/// let worker = try WorkerProcess(
///   name: "w0-0", forkedBy: template, request: "timers", handing: try HandedConnections()
/// ) { line in print("[\(line.worker)] \(line.text)") }
/// ```
package final class WorkerTemplate: Sendable {
  /// The template process itself.
  package let process: WorkerProcess
  /// The descriptor of the template's connection, for as long as `isClosed` is false.
  private let connection: Int32
  /// Whether the connection is closed; its lock makes requests one at a time.
  private let isClosed = Mutex(false)
  /// Whether the connection was shut down, which happens once, before it is closed: after
  /// that its descriptor may be another file's.
  private let isShutDown = Atomic(false)
  /// How long a request for a worker may wait for its answer. A fork takes about a
  /// millisecond; a template that takes longer is stopped or stuck, and the worker is better
  /// spawned than waited for.
  package static let forkDeadline = Duration.seconds(1)

  /// Starts the template and waits, at most `budget`, until it has proved itself.
  package init(
    name: String = "zygote", executable: URL, arguments: [String], directory: SocketDirectory, within budget: Duration,
    output: @escaping @Sendable (WorkerProcess.OutputLine) -> Void
  ) throws {
    let secret = LaunchSecret.random()
    try directory.ensureExists()
    let listener = try UnixListener(path: directory.path(for: name))
    defer { listener.close() }
    let process = try WorkerProcess(
      name: name, executable: executable, arguments: arguments, socketPath: listener.path, secret: secret,
      output: output)
    let descriptor: Int32
    do {
      let accepted = try WorkerAcceptor(listener: listener, worker: process, secret: secret, within: budget).accept()
      // The handshake is over: from here on the connection carries requests and descriptors,
      // not frames. A copy is kept; the connection closes the original.
      descriptor = fcntl(accepted.socket.descriptor, F_DUPFD_CLOEXEC, 0)
      guard descriptor >= 0 else { throw TransportError.system("fcntl(F_DUPFD_CLOEXEC)", "the worker template's socket") }
    } catch {
      process.kill()
      throw error
    }
    connection = descriptor
    self.process = process
    do {
      let (status, detail, pidfd) = try answer(on: descriptor, within: budget)
      guard status == bulkhead_template_ready, pidfd < 0 else {
        if pidfd >= 0 { Glibc.close(pidfd) }
        throw TransportError.malformed("the worker template (pid \(process.pid)) began with \(status), \(detail) instead of ready")
      }
    } catch {
      process.kill()
      close()
      throw error
    }
  }

  /// Waits, at most `deadline`, for the template's next answer: its status, detail and the
  /// descriptor that came with it (-1 if none).
  private func answer(
    on socket: Int32, within deadline: Duration
  ) throws(TransportError) -> (status: Int32, detail: Int32, descriptor: Int32) {
    var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
    var waited: Int32
    repeat { waited = poll(&ready, 1, deadline.wholeMilliseconds) } while waited < 0 && errno == EINTR
    guard waited > 0 else {
      throw .malformed(
        "the worker template (pid \(process.pid)) did not answer within \(deadline.wholeMilliseconds) ms: it is stopped or stuck")
    }
    var answer: [Int32] = [0, 0]
    var descriptor: Int32 = -1
    var count: Int32 = 0
    let received = answer.withUnsafeMutableBytes { answer in
      bulkhead_receive_with_descriptors(socket, answer.baseAddress, answer.count, &descriptor, 1, &count)
    }
    guard received == 8 else {
      if count > 0 { Glibc.close(descriptor) }
      throw received < 0 ? .system("recvmsg", "the worker template's socket") : gone
    }
    return (answer[0], answer[1], count > 0 ? descriptor : -1)
  }

  /// Asks the template for a new worker that serves `request`, with `descriptors` (its
  /// standard input, output and error, and its two connections) as its own; the caller keeps
  /// and closes its copies. Returns the worker's pid, as its pidfd says, and the pidfd, which
  /// the caller owns.
  ///
  /// - Throws: `TransportError` when the template is gone, does not answer within its
  ///   deadline, or could not fork (the reason is in the error).
  func fork(request: String, descriptors: [Int32]) throws(TransportError) -> (pid: pid_t, pidfd: Int32) {
    let bytes = Array(request.utf8)
    guard !bytes.isEmpty, bytes.count <= Int(bulkhead_template_request_limit), !bytes.contains(0) else {
      throw .malformed("a request to the worker template must be 1…\(bulkhead_template_request_limit) bytes without NUL: \(request.debugDescription)")
    }
    return try isClosed.withLock { isClosed throws(TransportError) -> (pid: pid_t, pidfd: Int32) in
      guard !isClosed else { throw gone }
      let socket = connection
      let sent = bytes.withUnsafeBytes { bytes in
        descriptors.withUnsafeBufferPointer { descriptors in
          bulkhead_send_with_descriptors(socket, bytes.baseAddress, bytes.count, descriptors.baseAddress, Int32(descriptors.count))
        }
      }
      guard sent == bytes.count else { throw sent < 0 ? .system("sendmsg", "the worker template's socket") : gone }
      let (status, detail, pidfd) = try answer(on: socket, within: Self.forkDeadline)
      switch (status, pidfd >= 0) {
      case (Int32(bulkhead_template_started), true) where detail > 0:
        // The pidfd is the worker: signals go through it, and limits by its pid.
        let pid = bulkhead_pidfd_pid(pidfd)
        guard pid == detail else {
          Glibc.close(pidfd)
          throw .malformed("the worker template (pid \(process.pid)) answered pid \(detail) with a pidfd for \(pid)")
        }
        return (pid, pidfd)
      case (Int32(bulkhead_template_fork_failed), false):
        throw .system(call: "clone3", errno: detail, context: "the worker template (pid \(process.pid))")
      case (Int32(bulkhead_template_too_many_threads), false):
        throw .malformed("the worker template (pid \(process.pid)) runs \(detail) threads, not 2, and cannot fork safely")
      case (Int32(bulkhead_template_no_thread_address), false):
        throw .malformed("the worker template (pid \(process.pid)) cannot find its thread id (PR_GET_TID_ADDRESS) and cannot fork safely")
      default:
        if pidfd >= 0 { Glibc.close(pidfd) }
        throw .malformed("the worker template (pid \(process.pid)) answered \(status), \(detail)")
      }
    }
  }

  private var gone: TransportError { .processExited(name: process.name, pid: process.pid) }

  /// Lets the template go: closes its connection and its input, so that it exits. The
  /// workers it forked go on. A request waiting for the template's answer ends at once.
  package func close() {
    // Wakes a request waiting in `poll` (closing the descriptor would not), so the lock is
    // free soon after.
    if !isShutDown.exchange(true, ordering: .acquiringAndReleasing) { shutdown(connection, Int32(SHUT_RDWR)) }
    isClosed.withLock { isClosed in
      if !isClosed { Glibc.close(connection) }
      isClosed = true
    }
    process.closeInput()
  }

  deinit { close() }
}
