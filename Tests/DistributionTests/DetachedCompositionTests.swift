@testable import BulkheadDistribution
@testable import BulkheadTools
import Foundation
import TestThreads
import Testing
import Transport

/// `./compose.sh up`, `ps`, `kill`, `stop`, `cont`, `slow`, `logs` and `down` as a person runs
/// them: real detached hosts with real workers, each test in a run directory of its own.
@Suite(.onItsOwnThread, .serialized) struct DetachedCompositionTests {
  @Test func psKillStopContAndDownActOnARunningComposition() throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    let up = try compose("up", "timers", compose.placement("timers pool 2 deadline 30s"))
    #expect(up.status == 0 && up.output.contains("timers is up: host pid"), "\(up)")
    let run = try #require(try RunFile.read(at: compose.runFile("timers")))
    let first = try compose.workers()
    #expect(first.count == 2 && first.allSatisfy(\.isRunning))
    #expect(first.allSatisfy { $0.restarts == 0 && ["S", "R"].contains($0.state) })

    let kill = try compose("kill", "timers", "timers", "1")
    #expect(kill.status == 0 && kill.output.contains("sent SIGKILL to worker 1 of timers"))
    let restarted = try compose.waitForWorkers { $0[1].pid != first[1].pid && $0[1].isRunning }
    #expect(restarted[1].restarts == 1 && restarted[0].pid == first[0].pid)
    #expect(allExited([first[1].pid].compactMap { $0 }))

    #expect(try compose("stop", "timers", "timers").status == 0)
    #expect(try compose.waitForWorkers { $0[0].state == "T" }[0].pid == first[0].pid)
    #expect(try compose("cont", "timers", "timers", "0").status == 0)
    #expect(try compose.waitForWorkers { $0[0].state != "T" }[0].pid == first[0].pid)

    let down = try compose("down", "timers")
    #expect(down.status == 0 && down.output.contains("timers is down"))
    #expect(allExited([run.pid] + restarted.compactMap(\.pid)))
    #expect(!FileManager.default.fileExists(atPath: compose.runFile("timers")))
    #expect(!FileManager.default.fileExists(atPath: (run.controlSocket as NSString).deletingLastPathComponent))
    let after = try compose("ps", "timers")
    #expect(after.status == 64 && after.error.contains("no composition of timers is running"))
  }

  @Test func badInputGetsAOneLineErrorThatSaysWhatAndWhere() throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    let never = try compose("ps", "timers")
    #expect(never.status == 64 && never.error.contains("no composition of timers is running") && never.error.contains(compose.runtime.path))
    #expect(try compose("up", "timers").status == 0)
    let again = try compose("up", "timers")
    #expect(again.status == 64 && again.error.contains("timers is already up: host pid") && again.error.contains(compose.runFile("timers")))
    let boundary = try compose("kill", "timers", "nope")
    #expect(boundary.status == 64 && boundary.error.contains("There is no boundary \"nope\"; the boundaries are: timers."))
    let index = try compose("stop", "timers", "timers", "2")
    #expect(index.status == 64 && index.error.contains("timers has workers 0 to 1; there is no worker 2"))
    let delay = try compose("slow", "timers", "timers", "fast")
    #expect(delay.status == 64 && delay.error.contains("the delay MS must be a whole number"))
    let other = try compose("ps", "two-counters")
    #expect(other.status == 64 && other.error.contains("no composition of two-counters is running: there is no run file"))
    // Messages name the compose.sh command, and a command line it cannot read points at help.
    #expect(delay.error.hasPrefix("compose.sh slow: ") && delay.error.hasSuffix("(\"./compose.sh help\" shows what each command takes)\n"))
    #expect(!(never.error + again.error + boundary.error + index.error + delay.error + other.error).contains("parent-host"))
    for result in [never, again, boundary, index, delay, other] { #expect(result.error.split(separator: "\n").count == 1) }
    let typo = try compose("ps", "timrs")
    #expect(typo.status == 64 && typo.error.contains("no composition of timrs is running (did you mean \"timers\"?)"), "\(typo)")
    #expect(try compose("down", "timers").status == 0)
  }

  @Test func aKilledHostLeavesAStaleRunFileThatTheNextCommandRemoves() throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    #expect(try compose("up", "timers").status == 0)
    let run = try #require(try RunFile.read(at: compose.runFile("timers")))
    let workers = try compose.workers().compactMap(\.pid)
    kill(run.pid, SIGKILL)
    // The workers see their host die and exit on their own.
    #expect(allExited([run.pid] + workers))

    let stale = try compose("ps", "timers")
    #expect(stale.status == 64)
    #expect(stale.error.contains("its run file \(compose.runFile("timers")) was stale (host pid \(run.pid) is gone) and is removed"))
    #expect(!FileManager.default.fileExists(atPath: compose.runFile("timers")))
    #expect(!FileManager.default.fileExists(atPath: (run.controlSocket as NSString).deletingLastPathComponent))

    // A run file of a host that is gone does not keep the next one from coming up.
    try RunFile(pid: run.pid, controlSocket: run.controlSocket, placement: "").publish(at: compose.runFile("timers"))
    let up = try compose("up", "timers")
    #expect(up.status == 0 && up.output.contains("was stale (host pid \(run.pid) is gone) and is removed"))
    #expect(try compose("down", "timers").status == 0)
  }

  /// A live host whose socket refuses is not taken for a dead one: its run file stays, and no
  /// second host of the app comes up beside it.
  @Test func aLiveHostWhoseSocketRefusesKeepsItsRunFile() throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    #expect(try compose("up", "timers").status == 0)
    let run = try #require(try RunFile.read(at: compose.runFile("timers")))
    let hidden = run.controlSocket + ".hidden"
    #expect(rename(run.controlSocket, hidden) == 0)
    let ps = try compose("ps", "timers")
    #expect(ps.status == 64)
    #expect(ps.error.contains("host pid \(run.pid) of timers is running, but its control socket"))
    #expect(FileManager.default.fileExists(atPath: compose.runFile("timers")))
    let second = try compose("up", "timers")
    #expect(second.status != 0 && second.error.contains("timers is already up"))
    #expect(rename(hidden, run.controlSocket) == 0)
    #expect(try compose("down", "timers").status == 0)
    #expect(allExited([run.pid]))
  }

  @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
  func aSignalledDetachedHostLeavesNothingBehind(signal: Int32) throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    #expect(try compose("up", "timers").status == 0)
    let run = try #require(try RunFile.read(at: compose.runFile("timers")))
    let workers = try compose.workers().compactMap(\.pid)
    kill(run.pid, signal)
    #expect(allExited([run.pid] + workers))
    #expect(!FileManager.default.fileExists(atPath: compose.runFile("timers")))
    #expect(!FileManager.default.fileExists(atPath: (run.controlSocket as NSString).deletingLastPathComponent))
  }

  /// A stop signal that comes while the host is still starting its workers is neither lost
  /// nor the end of the host without its clean-up: once the host can stop, it does, and leaves
  /// no worker, socket directory or run file behind.
  @Test func aSignalWhileTheHostStartsItsWorkersStopsItOnceUpAndLeavesNothingBehind() async throws {
    // Each worker spawned, not forked: the eight take long enough to start that the signal
    // comes between the first and the last.
    let compose = try Compose(environment: ["BULKHEAD_ZYGOTE": "off"])
    defer { compose.cleanUp() }
    let up = try compose.start("up", "timers", compose.placement("timers pool 8"))
    let started = try compose.waitForHostLog("timers") { !Self.workers(in: $0).isEmpty }
    // The host started the worker, so it is its parent; it has no run file yet.
    let host = try #require(Self.workers(in: started).first.flatMap(parent(of:)))
    kill(host, SIGTERM)
    _ = try await up.finish()
    // It stops once its workers have started, within their start-up deadline.
    #expect(ProcessWatch.waitForExit(of: host, milliseconds: 15_000))
    let log = compose.hostLog("timers")
    #expect(log.contains("host: SIGTERM, stopping the workers"), "\(log)")
    #expect(allExited(Self.workers(in: log)))
    #expect(!FileManager.default.fileExists(atPath: compose.runFile("timers")))
    let sockets = try FileManager.default.contentsOfDirectory(atPath: "/tmp").filter {
      $0.hasPrefix("\(SocketDirectory.namePrefix)\(host)-")
    }
    #expect(sockets.isEmpty)
  }

  /// The pids of the workers a host's log says serve the timers app.
  private static func workers(in log: String) -> [Int32] {
    log.split(separator: "\n").compactMap { line in
      let words = line.split(separator: " ")
      guard words.count == 5, words[0] == "[event]", words[1] == "worker", words[3...] == ["serves", "timers"] else {
        return nil
      }
      return Int32(words[2])
    }
  }

  @Test func logsShowEachBoundarysLinesByNameAndFollowThemUntilDown() async throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    #expect(try compose("up", "timers").status == 0)
    let workers = try compose.workers()
    let logs = try compose("logs", "timers", "timers")
    #expect(logs.status == 0)
    for pid in workers.compactMap(\.pid) { #expect(logs.output.contains("timers event: worker \(pid) serves timers")) }
    let unknown = try compose("logs", "timers", "nope")
    #expect(unknown.status == 64 && unknown.error.contains("There is no boundary \"nope\""))

    let follower = try compose.start("logs", "timers", "-f")
    #expect(try compose("kill", "timers", "timers", "0").status == 0)
    let restarted = try compose.waitForWorkers { $0[0].pid != workers[0].pid && $0[0].isRunning }
    #expect(try compose("down", "timers").status == 0)
    let followed = try await follower.finish()
    #expect(followed.status == 0)
    #expect(followed.output.contains("timers event: worker \(restarted[0].pid ?? 0) restarted for timers after: it was killed on request (SIGKILL)"))
    #expect(followed.output.hasSuffix("(timers is down)\n"))
  }

  @Test func topRedrawsInARealTerminalAndGivesItBack() async throws {
    let tmux = try #require(
      ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) },
      "top is tested in a real terminal through tmux, which is not installed: apt-get install tmux")
    let compose = try Compose()
    defer { compose.cleanUp() }
    #expect(try compose("up", "timers").status == 0)
    let terminal = Terminal(tmux: tmux, socket: compose.runtime.appendingPathComponent("tmux").path)
    try terminal.start(environment: compose.environment)
    defer { terminal.stop() }
    for quit in ["q", "C-c"] {
      try terminal.type("bash \(Compose.script.path) top timers", "Enter")
      // The timers app's second timer ticks once a second: an action crosses each time.
      let before = try terminal.waitForScreen { Self.actions(on: $0) != nil }
      let count = try #require(Self.actions(on: before))
      let later = try terminal.waitForScreen { (Self.actions(on: $0) ?? 0) > count }
      #expect(later.contains("(host)") && later.contains("timers[1]") && later.contains("ACTIONS/S"))
      try terminal.type(quit)
      // Typed only once top has left its screen, so that top cannot read it.
      _ = try terminal.waitForScreen { !$0.contains("ACTIONS/S") }
      try terminal.type("echo top-ended \"$(stty -a | grep -o -- '-*icanon')\"", "Enter")
      // The terminal is back as it was: the table gone, the line discipline canonical again.
      let back = try terminal.waitForScreen { $0.contains("top-ended icanon") }
      #expect(!back.contains("ACTIONS/S"))
      try terminal.type("clear", "Enter")
    }
    #expect(try compose("down", "timers").status == 0)
  }

  /// The host closes a connection that sends no request within its idle deadline; `top`, which
  /// waits a second between requests, makes it again and goes on.
  @Test func topGoesOnWhenTheHostClosesItsConnectionBetweenRefreshes() throws {
    let tmux = try #require(
      ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) },
      "top is tested in a real terminal through tmux, which is not installed: apt-get install tmux")
    let compose = try Compose(environment: [ActorListener.Limits.idleVariable: "300"])
    defer { compose.cleanUp() }
    #expect(try compose("up", "timers").status == 0)
    let terminal = Terminal(tmux: tmux, socket: compose.runtime.appendingPathComponent("tmux").path)
    try terminal.start(environment: compose.environment)
    defer { terminal.stop() }
    try terminal.type("bash \(Compose.script.path) top timers", "Enter")
    var count = try #require(Self.actions(on: try terminal.waitForScreen { Self.actions(on: $0) != nil }))
    // Each refresh after the first comes over a connection made again.
    for _ in 0..<2 {
      let later = try terminal.waitForScreen { (Self.actions(on: $0) ?? 0) > count }
      count = try #require(Self.actions(on: later))
    }
    #expect(compose.hostLog("timers").contains("it sent no request for 0.3 seconds"))
    try terminal.type("q")
    _ = try terminal.waitForScreen { !$0.contains("ACTIONS/S") }
    #expect(try compose("down", "timers").status == 0)
  }

  /// The ACTIONS column of the `timers` row of a `top` screen.
  private static func actions(on screen: String) -> Int? {
    // The boundary's row leaves the process columns empty: ACTIONS is its second word.
    let row = screen.split(separator: "\n").first { $0.hasPrefix("timers ") }
    return row.flatMap { Int($0.split(separator: " ")[1]) }
  }
}

/// `compose.sh` run with the host the tests built (BULKHEAD_HOST) and a run directory of its
/// own (XDG_RUNTIME_DIR), which `cleanUp()` takes down and removes.
struct Compose {
  static let script = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("compose.sh")

  let runtime: URL
  let environment: [String: String]

  /// A run directory of its own; `extra` adds to the environment of every command.
  init(environment extra: [String: String] = [:]) throws {
    runtime = FileManager.default.temporaryDirectory.appendingPathComponent("bulkhead-control-test-\(getpid())-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false)
    environment = [
      "XDG_RUNTIME_DIR": runtime.path,
      "BULKHEAD_HOST": workerExecutable.deletingLastPathComponent().appendingPathComponent("parent-host").path,
    ].merging(extra) { $1 }
  }

  struct Result: CustomStringConvertible {
    let status: Int32
    let output: String
    let error: String
    var description: String { "status \(status)\n\(output)\(error)" }
  }

  /// A worker as `ps` lists it; no pid between a death and the restart.
  struct Worker: Equatable {
    let pid: Int32?
    let state: String
    let restarts: Int

    var isRunning: Bool { pid != nil && !["gone", "-"].contains(state) }
  }

  func runFile(_ app: String) -> String { "\(runtime.path)/bulkhead-\(getuid())/\(app).run" }

  /// What the detached host of `app` has written so far (`APP.log`).
  func hostLog(_ app: String) -> String {
    (try? String(contentsOfFile: "\(runtime.path)/bulkhead-\(getuid())/\(app).log", encoding: .utf8)) ?? ""
  }

  /// Writes a placement file into the run directory's parent and returns its path.
  func placement(_ text: String) throws -> String {
    let file = runtime.appendingPathComponent("test.placement")
    try text.write(to: file, atomically: true, encoding: .utf8)
    return file.path
  }

  func callAsFunction(_ arguments: String...) throws -> Result {
    try start(arguments).finishSynchronously()
  }

  func start(_ arguments: String...) throws -> Running { try start(arguments) }

  private func start(_ arguments: [String]) throws -> Running {
    try bash([Self.script.path] + arguments)
  }

  /// Starts bash with `arguments` in `directory` (the current one if nil), in this
  /// environment, its output kept.
  func bash(_ arguments: [String], in directory: URL? = nil) throws -> Running {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    let error = Pipe()
    (process.standardOutput, process.standardError) = (output, error)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return Running(process: process, output: output, error: error)
  }

  /// A compose.sh command that is running.
  struct Running: @unchecked Sendable {
    // Safe: the process and pipes are read only by `finish` or `finishSynchronously`, once.
    let process: Process
    let output: Pipe
    let error: Pipe

    func finishSynchronously() -> Result {
      let printed = output.fileHandleForReading.readDataToEndOfFile()
      let complained = error.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return Result(
        status: process.terminationStatus, output: String(decoding: printed, as: UTF8.self),
        error: String(decoding: complained, as: UTF8.self))
    }

    /// Waits on a thread of its own: a command may run for long (`logs -f` until `down`).
    func finish() async throws -> Result {
      await onOwnThread { finishSynchronously() }
    }
  }

  /// What the detached host of `app` has written once `ready` holds of it. The host writes as
  /// it goes: the run directory is watched, and the log read again at each change, up to a
  /// deadline.
  func waitForHostLog(_ app: String, until ready: (String) -> Bool) throws -> String {
    let directory = try RunDirectory.open(creating: true, at: "\(runtime.path)/bulkhead-\(getuid())")
    // Watched before the log is read: a line written in between wakes the wait.
    let changes = try FileWatch(path: directory.path, for: UInt32(IN_CREATE | IN_MODIFY))
    defer { changes.close() }
    let deadline = ContinuousClock.now + .seconds(15)
    while true {
      let log = hostLog(app)
      if ready(log) { return log }
      let left = ContinuousClock.now.duration(to: deadline)
      guard left > .zero else { throw CommandFailed(result: Result(status: 0, output: log, error: "not in the log")) }
      changes.wait(milliseconds: left.wholeMilliseconds)
    }
  }

  /// The workers of the timers app as `ps` lists them, by index.
  func workers() throws -> [Worker] {
    let ps = try self("ps", "timers")
    guard ps.status == 0 else { throw CommandFailed(result: ps) }
    return ps.output.split(separator: "\n").compactMap { line in
      let columns = line.split(separator: " ")
      guard columns.first == "timers", columns.count >= 6, let restarts = Int(columns[5]) else { return nil }
      return Worker(pid: Int32(columns[2]), state: String(columns[3]), restarts: restarts)
    }
  }

  /// The workers once `ready` holds of them: a signal's effect and a restart are other
  /// processes' doing, so `ps` is polled, up to a deadline.
  func waitForWorkers(until ready: ([Worker]) -> Bool) throws -> [Worker] {
    let deadline = ContinuousClock.now + .seconds(15)
    while true {
      let workers = try workers()
      if ready(workers) { return workers }
      guard ContinuousClock.now < deadline else { throw CommandFailed(result: Result(status: 0, output: "\(workers)", error: "never ready")) }
      Thread.sleep(forTimeInterval: 0.05)
    }
  }

  /// Takes down whatever is still up and removes the run directory.
  func cleanUp() {
    let apps = (try? FileManager.default.contentsOfDirectory(atPath: "\(runtime.path)/bulkhead-\(getuid())")) ?? []
    for file in apps where file.hasSuffix(".run") { _ = try? self("down", String(file.dropLast(4))) }
    try? FileManager.default.removeItem(at: runtime)
  }

  struct CommandFailed: Error, CustomStringConvertible {
    let result: Result
    var description: String { "\(result)" }
  }
}

/// A tmux session on a private server, for a program that needs a real terminal. Its socket
/// is at `socket`, where the test's clean-up removes it.
struct Terminal {
  let tmux: String
  let socket: String
  let name = "top"

  /// Starts the server with a shell in its one pane. Not through `Process`, whose child
  /// would hand the server (a fork of the tmux client) the descriptor by which `Process` sees
  /// the child exit, and the client would never be seen to exit.
  func start(environment: [String: String]) throws {
    let variables = environment.map { "\($0.key)=\($0.value)" }
    let arguments = [tmux, "-S", socket, "new-session", "-d", "-s", name, "-x", "200", "-y", "30", "env"] + variables
      + ["bash", "--norc", "--noprofile"]
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for standard in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
      posix_spawn_file_actions_addopen(&actions, standard, "/dev/null", O_RDWR, 0)
    }
    // Closing one that closed meanwhile is no error.
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for descriptor in open.compactMap({ Int32($0) }) where descriptor > STDERR_FILENO {
      posix_spawn_file_actions_addclose(&actions, descriptor)
    }
    // The server waits on its children's signals, which a test's thread may have blocked.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var pid: pid_t = 0
    var status: Int32 = 0
    guard posix_spawn(&pid, tmux, &actions, &attributes, argv, environ) == 0, waitpid(pid, &status, 0) == pid, status == 0 else {
      throw Compose.CommandFailed(result: .init(status: status, output: "tmux new-session", error: "did not start"))
    }
  }

  func type(_ keys: String...) throws { try run(["send-keys", "-t", name] + keys) }

  /// The screen once `shows` holds of it; the program draws on its own clock, so the pane is
  /// captured again and again, up to a deadline.
  func waitForScreen(until shows: (String) -> Bool) throws -> String {
    let deadline = ContinuousClock.now + .seconds(20)
    while true {
      let screen = try capture()
      if shows(screen) { return screen }
      guard ContinuousClock.now < deadline else { throw Compose.CommandFailed(result: .init(status: 0, output: screen, error: "not on screen")) }
      Thread.sleep(forTimeInterval: 0.1)
    }
  }

  func stop() { _ = try? run(["kill-server"]) }

  private func capture() throws -> String { try run(["capture-pane", "-p", "-t", name], reading: true) }

  /// Runs a tmux command on the running server.
  @discardableResult
  private func run(_ arguments: [String], reading: Bool = false) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tmux)
    process.arguments = ["-S", socket] + arguments
    let output = Pipe()
    process.standardOutput = reading ? output : FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let printed = reading ? output.fileHandleForReading.readDataToEndOfFile() : Data()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw Compose.CommandFailed(result: .init(status: process.terminationStatus, output: "tmux \(arguments)", error: ""))
    }
    return String(decoding: printed, as: UTF8.self)
  }
}
