import Bulkhead
@testable import BulkheadDistribution
import Examples
import Foundation
import Testing
@testable import Transport

/// Under cgroup v1 a forked worker's groups are made before its fork and the worker joins them
/// itself as it begins (`JoinableGroups`): it serves in groups named for its pid, which go with
/// it, and a worker that cannot join its groups never runs.
@MainActor
@Suite(.serialized, .enabled(if: LimitMechanism.detect().kind == "cgroup v1", "this machine has no cgroup v1 the host may use"))
struct JoinedGroupsTests {
  @Test func aForkedWorkerServesInTheGroupsItJoinedNamedForItsPidAndTheyGoAtShutdown() throws {
    let mechanism = LimitMechanism.detect()
    let composition = try composition(app: "runaway", placement: "hog memory 128MB cpu 50%\n")
    let store = Store(initialState: Runaway.State()) { composition.compose(Runaway()) }
    store.send(.hog(.grow(megabytes: 1)))
    #expect(store.state.hog.megabytes == 1)
    #expect(composition.templatePID != nil, "the worker was forked")
    let worker = try #require(composition.processes.first?.pids.first)
    let hosts = composition.limitDirectories
    #expect(hosts.count == mechanism.roots.count)
    for host in hosts {
      // Only the worker's group, renamed from the one it joined: none is left under its first name.
      #expect(try FileManager.default.contentsOfDirectory(atPath: host).filter { $0.hasPrefix("w0-0-") } == ["w0-0-\(worker)"])
      let tasks = try String(contentsOfFile: "\(host)/w0-0-\(worker)/tasks", encoding: .utf8)
      #expect(tasks.split(separator: "\n").contains("\(worker)"), "\(host): \(tasks)")
    }
    let kernel = LimitsInForce(of: worker)
    #expect(kernel.memoryBytes == 128 << 20)
    #expect(mechanism.roots.count < 2 || kernel.cpuPercent == 50)
    composition.shutdown()
    for host in hosts { #expect(!FileManager.default.fileExists(atPath: host)) }
  }

  @Test func aForkedWorkerThatCannotJoinItsGroupsExitsBeforeItRuns() throws {
    let enforcer = LimitEnforcer(mechanism: LimitMechanism.detect())
    defer { enforcer.close() }
    let groups = try #require(try enforcer.groupsToJoin(ResourceLimits(memoryBytes: 64 << 20), name: "unjoinable"))
    defer { groups.closeDescriptors() }
    // Gone before the fork: writing to their `tasks` fails.
    groups.remove()
    let template = try startTemplate()
    defer { template.close() }
    let handed = try HandedConnections()
    let null = open("/dev/null", O_RDWR | O_CLOEXEC)
    defer { close(null) }
    let started: (pid: pid_t, pidfd: Int32)
    do {
      // The worker has its copies of its ends: the test's go, so that its exit ends them.
      defer { handed.closeWorkerEnds() }
      started = try template.fork(
        request: "counter1", descriptors: [null, null, null] + handed.workerDescriptors + groups.descriptors)
    }
    defer { close(started.pidfd) }
    // The template's parent, this process, is the worker's: a clone child, waited for with __WALL.
    var status: Int32 = 0
    #expect(waitpid(started.pid, &status, Int32(bitPattern: 0x4000_0000)) == started.pid)
    #expect(status & 0x7f == 0 && (status >> 8) & 0xff == 72, "status \(status)")
    try handed.control.setReceiveTimeout(milliseconds: 5_000)
    #expect(try handed.control.receive() == nil, "it never greeted")
  }
}
