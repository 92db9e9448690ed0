import Foundation
import Transport
import TransportTestSupport

// A worker for the transport's tests. It proves itself to the host, then echoes every frame
// back. A frame of kind 0xEE makes it exit with status 3.
//
//   transport-echo-worker              echo
//   transport-echo-worker --spawn PATH  start another echo worker, print its pid, then wait
//   transport-echo-worker --actors      host a `Calculator` distributed actor
//   transport-echo-worker --stranger    connect as a boundary worker does (control, then
//                                       effects), with a `Calculator` where its endpoint goes
//   transport-echo-worker --mute        connect as a boundary worker does, and answer nothing

let launch: WorkerLaunch
do {
  launch = try WorkerLaunch.receive()
} catch {
  FileHandle.standardError.write(Data("echo-worker: \(error)\n".utf8))
  exit(2)
}

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--spawn",
  case let .listener(socketPath, secret) = launch.connections
{
  let child = try WorkerProcess(
    name: "grandchild", executable: URL(fileURLWithPath: CommandLine.arguments[2]),
    socketPath: socketPath, secret: secret
  ) { _ in }
  FileHandle.standardOutput.write(Data("child \(child.pid)\n".utf8))
  _ = await child.waitForExit()
  exit(0)
}

if CommandLine.arguments.dropFirst() == ["--actors"] {
  let system = SocketActorSystem(connection: try launch.connect())
  let calculator = system.hosting(Calculator.id) { Calculator(actorSystem: $0) }
  FileHandle.standardOutput.write(Data("hosting \(Calculator.id)\n".utf8))
  // Serve until the host closes standard input.
  while true { try await Task.sleep(for: .seconds(3600)) }
  withExtendedLifetime(calculator) {}
}

if CommandLine.arguments.dropFirst() == ["--stranger"] {
  let system = SocketActorSystem(connection: try launch.connect())
  let effects = try launch.connect()
  let calculator = system.hosting(Calculator.id) { Calculator(actorSystem: $0) }
  // Serve until the host lets the worker go, closing its effects connection.
  while try effects.receive() != nil {}
  withExtendedLifetime(calculator) {}
  exit(0)
}

if CommandLine.arguments.dropFirst() == ["--mute"] {
  let control = try launch.connect()
  let effects = try launch.connect()
  // Read nothing from the control connection until the host lets the worker go.
  while try effects.receive() != nil {}
  withExtendedLifetime(control) {}
  exit(0)
}

FileHandle.standardOutput.write(Data("echo worker \(ProcessInfo.processInfo.processIdentifier) ready\n".utf8))
do {
  let connection = try launch.connect()
  while let frame = try connection.receive() {
    if frame.kind == 0xEE { exit(3) }
    try connection.send(frame)
  }
} catch {
  FileHandle.standardError.write(Data("echo-worker: \(error)\n".utf8))
  exit(1)
}
