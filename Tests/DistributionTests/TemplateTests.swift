import Bulkhead
import BulkheadDistribution
import ExampleApps
import Examples
import Foundation
import Synchronization
import Testing
import Transport

/// Workers forked from a worker template: they are the host's children (it reaps them, their
/// parent-death signal follows it), the template is one more process that shutdown stops, and
/// a template that dies is replaced while the workers it forked go on.
@MainActor
@Suite(.serialized) struct TemplateTests {
  @Test func workersAreForkedFromOneTemplateAsTheHostsChildren() throws {
    let composition = try composition(app: "timers", placement: "timers pool 3\n")
    defer { composition.shutdown() }
    let workers = composition.processes.flatMap(\.pids)
    let template = try #require(composition.templatePID)
    #expect(workers.count == 3)
    for pid in workers {
      #expect(parent(of: pid) == getpid())
      // Forked, not executed: a worker's command line is its template's, with the template's
      // flag renamed so that `ps` and `pgrep -f` tell them apart.
      #expect(commandLine(of: pid) == forked(commandLine(of: template)))
    }
    #expect(commandLine(of: template).contains("--bulkhead-zygote"))
    composition.shutdown()
    #expect(allExited(workers + [template]))
    // Reaped by the host, the workers' parent: none is left a zombie.
    #expect(workers.allSatisfy { !FileManager.default.fileExists(atPath: "/proc/\($0)") })
  }

  @Test func aTemplateThatDiesIsReplacedAndItsWorkersGoOn() async throws {
    let events = Events()
    let output = Mutex<[WorkerOutput]>([])
    let composition = try Composition(
      root: TwoCounters(), placement: Placement(parsing: "counter1\ncounter2\n", file: "two.placement"),
      command: .executable(workerExecutable, app: "two-counters"), onEvent: events.append,
      onOutput: { line in output.withLock { $0.append(line) } })
    defer { composition.shutdown() }
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    let first = try #require(composition.templatePID)
    kill(first, SIGKILL)
    #expect(ProcessWatch.waitForExit(of: first, milliseconds: 5_000))

    store.send(.counter1(.incrementButtonTapped))
    #expect(store.state.counter1.count == 1)

    let worker = try #require(composition.processes.first?.pids.first)
    composition.killWorker(of: "counter1")
    #expect(await events.first { $0 == .workerExited(boundary: "counter1", pid: worker) } != nil)
    store.send(.counter1(.incrementButtonTapped))
    #expect(store.state.counter1.count == 2)
    let second = try #require(composition.templatePID)
    #expect(second != first)
    let successor = try #require(composition.processes.first?.pids.first)
    #expect(parent(of: successor) == getpid())
    #expect(commandLine(of: successor) == forked(commandLine(of: second)))
    #expect(output.withLock { $0 }.contains { $0.worker == "zygote" && $0.text.contains("has exited; starting another") })
  }

  @Test func aStoppedTemplateDelaysNeitherAWorkerNorShutdownForLong() async throws {
    let composition = try composition(app: "two-counters", placement: "counter1\n")
    defer { composition.shutdown() }
    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    let template = try #require(composition.templatePID)
    let worker = try #require(composition.processes.first?.pids.first)
    kill(template, SIGSTOP)
    composition.killWorker(of: "counter1")
    #expect(ProcessWatch.waitForExit(of: worker, milliseconds: 5_000))
    // The fork is given up after its deadline, the worker spawned instead.
    let clock = ContinuousClock()
    let restart = clock.measure { store.send(.counter1(.incrementButtonTapped)) }
    #expect(store.state.counter1.count == 1)
    #expect(restart < WorkerTemplate.forkDeadline + .seconds(5), "the restart took \(restart)")
    let shutdown = clock.measure { composition.shutdown() }
    #expect(shutdown < .seconds(5), "shutdown took \(shutdown)")
    // Given up, the stopped template was killed (SIGKILL ends a stopped process too) and reaped.
    #expect(allExited([template]))
  }

  @Test func spawningEachWorkerStartsNoTemplate() throws {
    guard let example = ExampleApp.named("two-counters") else { return }
    let composition = try Composition(
      root: example.root(), placement: Placement(parsing: "counter1\n", file: "two.placement"),
      command: .executable(workerExecutable, app: "two-counters").spawningEachWorker())
    defer { composition.shutdown() }
    let worker = try #require(composition.processes.first?.pids.first)
    #expect(composition.templatePID == nil)
    #expect(commandLine(of: worker).contains("--bulkhead-worker"))
  }
}

/// The arguments of process `pid`, from /proc.
private func commandLine(of pid: Int32) -> [String] {
  guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return [] }
  return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
}

/// `arguments` with the template's flag as a forked worker's command line shows it.
private func forked(_ arguments: [String]) -> [String] {
  arguments.map { $0 == "--bulkhead-zygote" ? "--bulkhead-forked" : $0 }
}
