import Foundation
import TestThreads
import Testing
import Transport

/// A launch accepts its own worker's connections and nobody else's, and gives up as soon as
/// the worker is gone or late.
@Suite(.onItsOwnThread) struct WorkerAcceptorTests {
  @Test func strangersAreRefusedAndTheLaunchGoesOn() async throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let listener = try UnixListener(path: directory.path(for: "echo"))
    let secret = LaunchSecret.random()
    // Both are queued before the worker exists, so the acceptor meets them first: one says
    // nothing, one even knows the secret, but neither is the launched process.
    let silent = try UnixSocket.connect(to: listener.path)
    let impostor = FramedConnection(try UnixSocket.connect(to: listener.path))
    try impostor.send(Frame(kind: 0xF0, payload: Array(secret.text.utf8)))
    let worker = try WorkerProcess(
      name: "echo", executable: echoWorker, socketPath: listener.path, secret: secret) { _ in }
    var refusals: [TransportError] = []

    let connection = try WorkerAcceptor(listener: listener, worker: worker, secret: secret, within: .seconds(10))
      .accept { refusals.append($0) }

    #expect(refusals.count == 2)
    #expect(refusals == Array(repeating: .authenticationFailed(.otherProcess(pid: getpid(), expected: worker.pid)), count: 2))
    try connection.send(Frame(kind: 7, payload: [1]))
    #expect(try connection.receive() == Frame(kind: 7, payload: [1]))
    #expect(try impostor.receive() == nil)
    withExtendedLifetime(silent) {}
    worker.kill()
    _ = await worker.waitForExit()
  }

  @Test func aWorkerThatExitsBeforeItConnectsEndsTheWaitAtOnce() async throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let listener = try UnixListener(path: directory.path(for: "quitter"))
    let secret = LaunchSecret.random()
    let worker = try WorkerProcess(
      name: "quitter", executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "read a; read b; exit 7"],
      socketPath: listener.path, secret: secret) { _ in }
    let started = ContinuousClock.now

    #expect(throws: TransportError.processExited(name: "quitter", pid: worker.pid)) {
      try WorkerAcceptor(listener: listener, worker: worker, secret: secret, within: .seconds(60)).accept()
    }
    #expect(ContinuousClock.now - started < .seconds(30))
    #expect(await worker.waitForExit() == .exited(status: 7))
  }

  @Test func aWorkerThatNeverConnectsTimesOutAtItsDeadline() async throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let listener = try UnixListener(path: directory.path(for: "sleeper"))
    let secret = LaunchSecret.random()
    let worker = try WorkerProcess(
      name: "sleeper", executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "read a; read b; read c; read d; exit 5"],
      socketPath: listener.path, secret: secret) { _ in }

    #expect(throws: TransportError.timedOut(path: listener.path, milliseconds: 200)) {
      try WorkerAcceptor(listener: listener, worker: worker, secret: secret, within: .milliseconds(200)).accept()
    }
    worker.closeInput()
    #expect(await worker.waitForExit() == .exited(status: 5))
  }
}
