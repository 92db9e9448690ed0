import Bulkhead
import CSystem
@testable import BulkheadDistribution
import Foundation
import Synchronization
import Testing
import Transport

/// A worker forked from a template gets its two connections with its fork (`HandedConnections`):
/// it serves on them, the host keeps no copy of the worker's ends, and a worker handed
/// something else, or a template that dies with a request unanswered, fails with a clear error.
@Suite(.serialized) struct HandedConnectionsTests {
  @Test func aForkedWorkerGreetsAndServesOnTheConnectionsHandedWithItsFork() throws {
    let forked = try ForkedCounter()
    defer { forked.close() }
    let (handed, worker) = (forked.handed, forked.worker)
    guard case let .serving(greeting) = try forked.endpoint.helloSynchronously() else {
      Issue.record("the forked worker did not say it serves counter1")
      return
    }
    #expect(greeting.boundary == "counter1")
    // The host let its copies of the worker's ends go: the worker's death ends the connections.
    worker.kill()
    #expect(ProcessWatch.waitForExit(of: worker.pid, milliseconds: 5_000))
    try handed.effects.setReceiveTimeout(milliseconds: 5_000)
    #expect(try handed.effects.receive() == nil)
  }

  @Test func theHostHoldsNoPidfdOfAForkedWorkerWhileItRunsAndReapsItWhenItIsKilledFromOutside() async throws {
    let forked = try ForkedCounter()
    defer { forked.close() }
    let worker = forked.worker
    _ = try forked.endpoint.helloSynchronously()

    // Running, it costs the host no pidfd.
    #expect(pidfds(naming: worker.pid).isEmpty)
    let identity = bulkhead_pidfd_open(worker.pid)
    try #require(identity >= 0)
    defer { close(identity) }
    // The look for pidfds above would have seen one.
    #expect(pidfds(naming: worker.pid) == [identity])
    // Signals by its pid reach it: it stops and continues (waited for as its parent, WNOWAIT).
    var info = siginfo_t()
    #expect(worker.send(signal: SIGSTOP))
    #expect(waitid(idtype_t(rawValue: 3), id_t(identity), &info, WSTOPPED | WNOWAIT) == 0 && info.si_code == CLD_STOPPED)
    #expect(worker.send(signal: SIGCONT))
    #expect(waitid(idtype_t(rawValue: 3), id_t(identity), &info, WCONTINUED | WNOWAIT) == 0 && info.si_code == CLD_CONTINUED)
    // Killed as `kill -9` would, not through the host: its end is heard and it is reaped.
    #expect(kill(worker.pid, SIGKILL) == 0)
    // Ended: reaped, and the pidfd the host opened for its exit closed.
    #expect(await worker.waitForExit() == .signalled(signal: SIGKILL))
    #expect(worker.hasEnded)
    #expect(waitid(idtype_t(rawValue: 3), id_t(identity), &info, WEXITED | WNOHANG | WNOWAIT) == -1 && errno == ECHILD)
    #expect(!worker.send(signal: 0))
  }

  @Test func aWorkerHandedSomethingElseThanItsHostsConnectionsSaysSo() throws {
    // A launch that says the connections were handed, and descriptor 3 a file, not a socket.
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments =
      ["-c", "exec \"$@\" 3</dev/null 4</dev/null", "sh", workerExecutable.path]
      + WorkerCommand.Role(app: "two-counters", boundary: "counter1").arguments
    let input = Pipe()
    let errors = Pipe()
    process.standardInput = input
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors
    try process.run()
    try input.fileHandleForWriting.write(contentsOf: WorkerLaunch.text(.handed, brief: ""))
    let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    try input.fileHandleForWriting.close()

    #expect(process.terminationStatus != 0)
    #expect(said.contains("descriptor 3 is not a connection from this worker's host: not a socket"), "it said: \(said)")
  }

  @Test func aTemplateThatDiesWithARequestUnansweredFailsTheForkAtOnce() throws {
    let template = try startTemplate()
    defer { template.close() }
    let handed = try HandedConnections()
    // Stopped, it reads no request; killed (most likely once the request is sent, whose answer
    // is then awaited; or before, and the request cannot be sent), it answers none.
    #expect(template.process.send(signal: SIGSTOP))
    DetachedThread.run { template.process.kill() }
    let started = ContinuousClock.now
    #expect(throws: TransportError.self) {
      _ = try WorkerProcess(name: "counter1", forkedBy: template, request: "counter1", handing: handed) { _ in }
    }
    #expect(ContinuousClock.now - started < WorkerTemplate.forkDeadline)
    // Nothing of the worker's ends stayed open in the host.
    try handed.control.setReceiveTimeout(milliseconds: 5_000)
    #expect(try handed.control.receive() == nil)
  }
}

/// A `counter1` worker forked from a template of its own, on connections handed with its
/// fork, and the host's end of its requests; `close()` ends them all.
private struct ForkedCounter {
  let template: WorkerTemplate
  let handed: HandedConnections
  let worker: WorkerProcess
  let system: SocketActorSystem
  let endpoint: BoundaryEndpoint

  init() throws {
    let template = try startTemplate()
    var started: (worker: WorkerProcess, system: SocketActorSystem)?
    do {
      let handed = try HandedConnections()
      let worker = try WorkerProcess(name: "counter1", forkedBy: template, request: "counter1", handing: handed) { _ in }
      let system = SocketActorSystem(connection: handed.control, callTimeout: .seconds(10), reading: .byCaller)
      started = (worker, system)
      endpoint = try BoundaryEndpoint.resolve(id: BoundaryEndpoint.id, using: system)
      (self.template, self.handed, self.worker, self.system) = (template, handed, worker, system)
    } catch {
      started?.system.close()
      started?.worker.kill()
      template.close()
      throw error
    }
  }

  func close() {
    system.close()
    worker.kill()
    template.close()
  }
}

/// A template of the two-counters app, started as a composition starts one.
func startTemplate() throws -> WorkerTemplate {
  let directory = try SocketDirectory.create()
  defer { directory.remove() }
  return try WorkerTemplate(
    executable: workerExecutable, arguments: WorkerCommand.TemplateRole(app: "two-counters").arguments,
    directory: directory, within: .seconds(10)) { _ in }
}

/// The descriptors of this process that are pidfds of process `pid` (their fdinfo says `Pid:`).
private func pidfds(naming pid: pid_t) -> [Int32] {
  let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
  return entries.compactMap(Int32.init).filter { descriptor in
    guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
      link.contains("pidfd"), let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(descriptor)", encoding: .utf8)
    else { return false }
    return info.split(separator: "\n").contains("Pid:\t\(pid)")
  }.sorted()
}
