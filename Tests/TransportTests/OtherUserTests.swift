import Foundation
import Testing
import Transport

/// Starts the echo worker as the user `nobody`, which only root can do.
private func launchAsNobody(
  socketPath: String, secret: LaunchSecret, errors: Lines
) throws -> WorkerProcess {
  try WorkerProcess(
    name: "nobody", executable: URL(fileURLWithPath: "/usr/bin/setpriv"),
    arguments: ["--reuid=65534", "--regid=65534", "--clear-groups", echoWorker.path],
    socketPath: socketPath, secret: secret, output: errors.append)
}

private let canSwitchUser =
  getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

@Suite(.serialized, .enabled(if: canSwitchUser, "needs root and setpriv to act as another user"))
struct OtherUserTests {
  @Test func anotherUserCannotEvenReachThePrivateSocketDirectory() async throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let listener = try UnixListener(path: directory.path(for: "private"))
    let lines = Lines()
    let worker = try launchAsNobody(socketPath: listener.path, secret: .random(), errors: lines)
    #expect(await worker.waitForExit() == .exited(status: 1))
    let error = await lines.first { $0.stream == .standardError ? $0.text : nil }
    #expect(error.contains("Permission denied"))
  }

  @Test func anotherUserWithTheSecretIsRefusedByItsUID() async throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let listener = try UnixListener(path: directory.path(for: "open"))
    // Open the door on purpose, so that only the credential check stands in the way.
    chmod(directory.path, 0o777)
    chmod(listener.path, 0o777)
    let secret = LaunchSecret.random()
    let worker = try launchAsNobody(socketPath: listener.path, secret: secret, errors: Lines())
    let connection = FramedConnection(try listener.accept())
    #expect(throws: TransportError.authenticationFailed(.otherUser(uid: 65534, expected: 0))) {
      try Handshake.verify(connection, secret: secret)
    }
    #expect(await worker.waitForExit() == .exited(status: 1))
  }
}
