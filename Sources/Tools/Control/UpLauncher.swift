import Bulkhead
import BulkheadDistribution
import Foundation
internal import Transport

/// `up`: starts this executable as the detached host of an app (`--app APP --up`), in a
/// session of its own with its output in the run directory, and returns once the host has
/// written its run file, that is once its workers and control socket are up.
///
/// ```swift
/// try UpLauncher(app: "timers", hostOptions: ["--placement", "timers.placement"]).launch(terminal: terminal)
/// ```
struct UpLauncher {
  let app: String
  let hostOptions: [String]

  /// How long the host may take to come up: its workers' start-up deadline is 10 s unless
  /// the placement says otherwise.
  static let readiness = Duration.seconds(60)
  /// How often the wait looks at the host itself, between the run directory's changes.
  static let hostCheckPeriod: Int32 = 100

  func launch(terminal: HostTerminal) throws {
    let directory = try RunDirectory.open(creating: true)
    // One launch of an app at a time: a second `up` racing this one waits, then finds it up,
    // instead of starting a host that writes into the same log.
    let lock = try directory.lock(app)
    defer { close(lock) }
    let runPath = directory.runFile(of: app)
    if let run = try RunFile.read(at: runPath) {
      guard run.hostStatus(app: app) == .gone else {
        throw DetachedError.alreadyUp(app: app, pid: run.pid, controlSocket: run.controlSocket, runFile: runPath)
      }
      terminal.say("\(app): \(run.removeStale(at: runPath))")
    }
    let changes = try FileWatch(path: directory.path, for: UInt32(IN_CREATE | IN_MOVED_TO))
    defer { changes.close() }
    let log = directory.hostLog(of: app)
    let host = try DetachedProcess(
      executable: try Self.thisExecutable(), arguments: ["--app", app, "--up"] + hostOptions, output: log)
    let deadline = ContinuousClock.now + Self.readiness
    while ContinuousClock.now < deadline {
      if let run = try? RunFile.read(at: runPath), run.pid == host.pid {
        terminal.say("\(app) is up: host pid \(run.pid), control socket \(run.controlSocket)")
        terminal.say("  run file \(runPath), host log \(log), boundary log \(directory.boundaryLog(of: app))")
        return
      }
      if let status = host.exitStatus() {
        throw DetachedError.hostExited(app: app, status: status, log: log, logTail: Self.tail(of: log))
      }
      changes.wait(milliseconds: Self.hostCheckPeriod)
    }
    throw DetachedError.hostNotUp(app: app, pid: host.pid, readiness: Self.readiness, log: log)
  }

  private static func thisExecutable() throws(DetachedError) -> String {
    guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
      throw .noExecutable
    }
    return path
  }

  /// The last lines of `path`, indented.
  private static func tail(of path: String, lines: Int = 15) -> String {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").suffix(lines).map { "  \($0)" }.joined(separator: "\n")
  }
}

/// A process started in a session of its own (`setsid`), its standard input /dev/null, its
/// standard output and error one file, and no other descriptor of this process, so that it outlives the terminal that started it
/// and Ctrl-C there never reaches it.
private struct DetachedProcess {
  let pid: pid_t

  /// glibc's POSIX_SPAWN_SETSID (2.26 and later), which Swift does not see: it is declared
  /// only under _GNU_SOURCE.
  private static let setSession: Int32 = 0x80

  init(executable: String, arguments: [String], output: String) throws(DetachedError) {
    var actions = posix_spawn_file_actions_t()
    var attributes = posix_spawnattr_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawnattr_init(&attributes)
    defer {
      posix_spawn_file_actions_destroy(&actions)
      posix_spawnattr_destroy(&attributes)
    }
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO)
    Self.closeOnExecAboveStandardStreams()
    // What a shell's background job ignores (SIGINT, SIGQUIT) the host would inherit: it
    // starts with every signal at its default, none blocked.
    var defaults = sigset_t()
    sigfillset(&defaults)
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(Self.setSession | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
    guard result == 0 else {
      throw .cannotStartHost(executable: executable, errno: result)
    }
    self.pid = pid
  }

  /// Marks every descriptor above the standard streams close-on-exec: one this process
  /// inherited open (a pipe of whoever started compose.sh) would otherwise stay open in the
  /// host for as long as it runs, and its reader would never see the end.
  private static func closeOnExecAboveStandardStreams() {
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for descriptor in descriptors.compactMap({ Int32($0) }) where descriptor > STDERR_FILENO {
      _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
    }
  }

  /// How the process ended, once it has; nil while it runs.
  func exitStatus() -> String? {
    var status: Int32 = 0
    guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
    let signal = status & 0x7f
    return signal == 0 ? "status \((status >> 8) & 0xff)" : "killed by signal \(signal)"
  }
}
