import Foundation
import Synchronization
import TestThreads
import Testing
import Transport

@Suite(.onItsOwnThread, .serialized) struct WorkerProcessTests {
  @Test func aWorkerAuthenticatesEchoesAndReportsItsExit() async throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let listener = try UnixListener(path: directory.path(for: "echo"))
    let secret = LaunchSecret.random()
    let lines = Lines()
    let worker = try WorkerProcess(
      name: "echo", executable: echoWorker, socketPath: listener.path, secret: secret,
      output: lines.append)
    let connection = FramedConnection(try listener.accept())
    let credentials = try Handshake.verify(connection, secret: secret, expectedPID: worker.pid)
    #expect(credentials.pid == worker.pid)
    try connection.send([Frame(kind: 1, payload: [1, 2]), Frame(kind: 2, payload: [])])
    #expect(try connection.receive() == Frame(kind: 1, payload: [1, 2]))
    #expect(try connection.receive() == Frame(kind: 2, payload: []))
    try connection.send(Frame(kind: 0xEE, payload: []))
    #expect(await worker.waitForExit() == .exited(status: 3))
    #expect(try connection.receive() == nil)
    #expect(lines.all.contains { $0.worker == "echo" && $0.stream == .standardOutput && $0.text == "echo worker \(worker.pid) ready" })
  }

  @Test func aKilledWorkerIsNoticedAtOnceOnItsSocket() async throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let listener = try UnixListener(path: directory.path(for: "victim"))
    let secret = LaunchSecret.random()
    let worker = try WorkerProcess(
      name: "victim", executable: echoWorker, socketPath: listener.path, secret: secret) { _ in }
    let connection = FramedConnection(try listener.accept())
    _ = try Handshake.verify(connection, secret: secret, expectedPID: worker.pid)
    worker.kill()
    #expect(try connection.receive() == nil)
    #expect(await worker.waitForExit() == .signalled(signal: SIGKILL))
  }

  @Test func theMemoryVerdictOfAWorkerThatHasEndedIsToldAtOnce() async throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let listener = try UnixListener(path: directory.path(for: "limited"))
    let secret = LaunchSecret.random()
    let enforcer = LimitEnforcer(mechanism: .resourceLimits)
    let worker = try WorkerProcess(
      name: "limited", executable: echoWorker, socketPath: listener.path, secret: secret,
      limits: LimitRequest(enforcer: enforcer, limits: ResourceLimits(memoryBytes: 256 << 20))) { _ in }
    _ = try Handshake.verify(FramedConnection(try listener.accept()), secret: secret, expectedPID: worker.pid)
    worker.kill()
    #expect(worker.waitForEnd(milliseconds: 30_000))
    // Its output has ended: nothing is left to wait for, so the verdict takes no part of the
    // minute it may wait (it took all of it when it waited for a signal no one would send).
    let start = ContinuousClock.now
    #expect(!worker.endedAtMemoryLimit(waitingAtMost: 60_000), "killed by the host, not by its limit")
    #expect(ContinuousClock.now - start < .seconds(30))
  }

  @Test func aWorkerWhoseHostDiesExitsOnItsOwn() async throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let listener = try UnixListener(path: directory.path(for: "orphan"))
    let lines = Lines()
    let middle = try WorkerProcess(
      name: "middle", executable: echoWorker, arguments: ["--spawn", echoWorker.path],
      socketPath: listener.path, secret: .random(), output: lines.append)
    // The middle process reports its child's pid, then is killed without any cleanup.
    let grandchild = await lines.first { $0.text.hasPrefix("child ") ? pid_t($0.text.dropFirst(6)) : nil }
    middle.kill()
    _ = await middle.waitForExit()
    #expect(ProcessWatch.waitForExit(of: grandchild, milliseconds: 5_000))
  }

  @Test func impostorsAreRefusedAndTheListenerKeepsServing() throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let listener = try UnixListener(path: directory.path(for: "gate"))
    let secret = LaunchSecret.random()
    var generator = SystemRandomNumberGenerator()
    var refused = 0
    var served = 0
    for round in 0..<300 {
      let client = try UnixSocket.connect(to: listener.path)
      let isGood = round % 10 == 0
      if isGood {
        var hello: [UInt8] = []
        FramedConnection.append(Frame(kind: 0xF0, payload: Array(secret.text.utf8)), to: &hello)
        try hello.withUnsafeBytes { try client.write($0) }
      } else if round % 3 == 0 {
        var hello: [UInt8] = []
        FramedConnection.append(Frame(kind: 0xF0, payload: Array(LaunchSecret.random().text.utf8)), to: &hello)
        try hello.withUnsafeBytes { try client.write($0) }
        client.shutdown()
      } else {
        let garbage = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try garbage.withUnsafeBytes { try client.write($0) }
        client.shutdown()
      }
      let server = FramedConnection(try listener.accept())
      do {
        _ = try Handshake.verify(server, secret: secret)
        served += 1
        #expect(isGood)
        #expect(try FramedConnection(client).receive()?.kind == 0xF1)
      } catch {
        refused += 1
        #expect(!isGood, "\(error)")
      }
    }
    #expect(served == 30)
    #expect(refused == 270)
  }

  @Test func theWrongProcessIsRefusedEvenWithTheSecret() throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let listener = try UnixListener(path: directory.path(for: "pid"))
    let secret = LaunchSecret.random()
    let client = try UnixSocket.connect(to: listener.path)
    var hello: [UInt8] = []
    FramedConnection.append(Frame(kind: 0xF0, payload: Array(secret.text.utf8)), to: &hello)
    try hello.withUnsafeBytes { try client.write($0) }
    let server = FramedConnection(try listener.accept())
    #expect(throws: TransportError.self) { try Handshake.verify(server, secret: secret, expectedPID: 1) }
  }
}
