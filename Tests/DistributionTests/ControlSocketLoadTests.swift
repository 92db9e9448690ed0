@testable import BulkheadDistribution
@testable import BulkheadTools
import Foundation
import TestThreads
import Testing
import Transport
import TransportTestSupport

/// A detached host's control socket under many clients, as `./compose.sh up` starts it: a real
/// host with real workers, its threads, memory and descriptors read from /proc.
@Suite(.onItsOwnThread, .serialized) struct ControlSocketLoadTests {
  @Test func aThousandIdleClientsCostTheHostNoThreadAndLeaveNothingBehind() async throws {
    try raiseDescriptorLimit(to: 4_096)
    // Long enough that no idle client reaches the idle deadline while the test looks at them.
    let compose = try Compose(environment: [ActorListener.Limits.idleVariable: "600000"])
    defer { compose.cleanUp() }
    #expect(try compose("up", "timers").status == 0)
    let run = try #require(try RunFile.read(at: compose.runFile("timers")))
    // Warmed up: the first requests load what every later one uses.
    for _ in 0..<3 { #expect(try compose("ps", "timers").status == 0) }
    let rest = try #require(HostFootprint(of: run.pid))

    var idle = try (0..<1_000).map { _ in try UnixSocket.connect(to: run.controlSocket) }
    // The host accepts connections in the order they came: once it has answered this `ps`,
    // it has accepted all 1,000 before it.
    let ps = try compose("ps", "timers")
    #expect(ps.status == 0 && ps.output.contains("(host)"), "\(ps)")
    let open = try #require(HostFootprint(of: run.pid))
    // Less the two of which `isNear` allows at rest.
    #expect(open.descriptors >= rest.descriptors + 1_000 - 2)
    #expect(open.threads <= rest.threads + 2, "at rest \(rest), with 1,000 clients \(open)")
    #expect(open.residentKilobytes <= rest.residentKilobytes + 10 << 10, "at rest \(rest), with 1,000 clients \(open)")
    let slow = try compose("slow", "timers", "timers", "0")
    #expect(slow.status == 0, "\(slow)")

    // Past the most it serves at once, the host refuses, and both sides say so.
    idle += try (idle.count..<ActorListener.Limits.standard.maximumConnections).map { _ in
      try UnixSocket.connect(to: run.controlSocket)
    }
    let refused = try compose("ps", "timers")
    #expect(refused.status == 64 && refused.error.contains("closed the control connection and is still up"), "\(refused)")
    #expect(compose.hostLog("timers").contains("1024 connections are open, the most this listener serves at once"))

    idle = []
    // Answered once the host has read the end of every connection closed before it.
    #expect(try compose("ps", "timers").status == 0)
    let closed = try #require(HostFootprint(of: run.pid))
    #expect(closed.isNear(rest), "at rest \(rest), after 1,024 clients closed \(closed)")

    // What `ps` does, 1,000 times over, and `ps` itself 20 times.
    for _ in 0..<1_000 {
      let system = SocketActorSystem(
        connection: FramedConnection(try UnixSocket.connect(to: run.controlSocket)), reading: .byCaller)
      defer { system.close() }
      let control = try CompositionControl.resolve(id: CompositionControl.id, using: system)
      #expect(try await control.snapshot().hostPID == Int(run.pid))
    }
    for _ in 0..<20 { #expect(try compose("ps", "timers").status == 0) }
    let looped = try #require(HostFootprint(of: run.pid))
    #expect(looped.isNear(rest), "at rest \(rest), after 1,020 ps \(looped)")
    #expect(try compose("down", "timers").status == 0)
  }

  @Test func aClientThatSendsHalfARequestOrNothingIsClosedAtTheDeadline() throws {
    let compose = try Compose(
      environment: [ActorListener.Limits.deadlineVariable: "500", ActorListener.Limits.idleVariable: "700"])
    defer { compose.cleanUp() }
    #expect(try compose("up", "timers").status == 0)
    let run = try #require(try RunFile.read(at: compose.runFile("timers")))
    let half = try UnixSocket.connect(to: run.controlSocket)
    let silent = try UnixSocket.connect(to: run.controlSocket)
    // Two bytes of a frame's eleven-byte header.
    try [UInt8]([5, 0]).withUnsafeBytes { try half.write($0) }
    let started = ContinuousClock.now
    #expect(try reachesEnd(half, within: 10_000) && reachesEnd(silent, within: 10_000))
    #expect(ContinuousClock.now - started >= .milliseconds(500))
    // Said before the host closed them.
    let log = compose.hostLog("timers")
    let closed = "host: control socket: a connection from pid \(getpid()) was closed: "
    #expect(log.contains(closed + "its request did not come whole within 0.5 seconds (it sent 2 bytes of it)"), "\(log)")
    #expect(log.contains(closed + "it sent no request for 0.7 seconds"), "\(log)")
    #expect(try compose("ps", "timers").status == 0)
    #expect(try compose("down", "timers").status == 0)
  }

  @Test func aDeadlineThatIsNotANumberKeepsTheHostFromComingUp() throws {
    let compose = try Compose(environment: [ActorListener.Limits.deadlineVariable: "soon"])
    defer { compose.cleanUp() }
    let up = try compose("up", "timers")
    #expect(up.status == 64, "\(up)")
    #expect(up.error.contains("BULKHEAD_CONTROL_DEADLINE_MS must be a whole number of milliseconds from 1 to 3600000; got \"soon\""))
  }
}

/// What a process holds, from /proc: threads, resident memory and open descriptors.
private struct HostFootprint: CustomStringConvertible {
  let threads: Int
  let residentKilobytes: Int
  let descriptors: Int

  init?(of pid: Int32) {
    guard let resident = ProcessState(of: pid)?.residentKilobytes,
      let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"),
      let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
    else { return nil }
    (self.threads, residentKilobytes, self.descriptors) = (threads.count, resident, descriptors.count)
  }

  /// Within 2 threads, 10 MB and 2 descriptors (the last `ps`, whose end the host may not
  /// have read yet) of `rest`.
  func isNear(_ rest: HostFootprint) -> Bool {
    threads <= rest.threads + 2 && residentKilobytes <= rest.residentKilobytes + 10 << 10
      && descriptors <= rest.descriptors + 2
  }

  var description: String { "\(threads) threads, \(residentKilobytes) kB resident, \(descriptors) descriptors" }
}

/// Lets this process, and the hosts it starts, open `count` descriptors, if the hard limit
/// allows: a test that holds 1,000 connections open needs more than the usual 1,024.
private func raiseDescriptorLimit(to count: rlim_t) throws {
  var limit = rlimit()
  getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  guard limit.rlim_cur < count else { return }
  limit.rlim_cur = min(count, limit.rlim_max)
  setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  try #require(limit.rlim_cur >= 2_200, "this test holds 1,024 connections open; the hard descriptor limit is \(limit.rlim_max)")
}
