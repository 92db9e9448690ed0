import Foundation
import Transport

// A worker's stand-in that damages frames, for testing that bad bytes never win. A host
// starts it as it would start a worker; it starts the real worker behind a socket of its own
// and relays every frame both ways, mutating some with a seeded generator.
//
//   chaos-relay --seed 7 --rate 0.01 --after 1 -- .build/debug/child-worker --app two-counters --boundary counter1

let options: RelayOptions
do {
  options = try RelayOptions(parsing: Array(CommandLine.arguments.dropFirst()))
} catch {
  report("\(error)\n\(RelayOptions.usage)")
  exit(64)
}

// Ctrl-C in a terminal reaches the whole process group; the host decides when workers stop.
signal(SIGINT, SIG_IGN)
let lifecycle = RelayLifecycle(seed: options.seed)
do {
  try EndingSignals.handle([SIGTERM, SIGHUP]) { lifecycle.end(because: "signal \($0)") }
} catch {
  report("cannot watch for signals (\(error)); a signal will end the relay without cleanup")
}
// `WorkerLaunch` exits the process when the host closes standard input; clean up then too.
atexit { lifecycle.cleanUp() }

do {
  let launch = try WorkerLaunch.receive()
  let directory = try SocketDirectory.create()
  lifecycle.own(directory)
  let listener = try UnixListener(path: directory.path(for: "worker"))
  let secret = LaunchSecret.random()
  let worker = try WorkerProcess(
    name: "worker", executable: URL(fileURLWithPath: options.worker), arguments: options.workerArguments,
    socketPath: listener.path, secret: secret
  ) { line in report("[worker \(line.stream.rawValue)] \(line.text)") }
  lifecycle.own(worker)

  // Control first, effects second, on both sides: the host tells them apart by that order.
  var pumps: [FramePump] = []
  let log: (@Sendable (String) -> Void)? = options.isVerbose ? { @Sendable in report($0) } : nil
  for connection in [Lane.Connection.control, .effects] {
    let downstream = FramedConnection(try listener.accept(timeout: 10_000))
    _ = try Handshake.verify(downstream, secret: secret, expectedPID: worker.pid)
    let upstream = try launch.connect()
    for (direction, source, destination) in [
      (Lane.Direction.toWorker, upstream, downstream), (.toHost, downstream, upstream),
    ] {
      let lane = Lane(connection: connection, direction: direction)
      let mutator = Mutator(
        seed: options.seed, lane: lane.number, rate: options.lanes.contains(lane) ? options.rate : 0,
        kinds: options.kinds, bits: options.bits, untouched: options.untouched)
      pumps.append(
        FramePump(
          lane: lane, from: source, to: destination.socket, mutator: mutator, tally: lifecycle.tally,
          recomputesChecksums: options.recomputesChecksums, log: log))
    }
  }
  listener.close()
  lifecycle.removeDirectory()
  // Tests read this line to check that the worker and the directory are gone at the end.
  report("seed \(options.seed): relaying worker \(worker.pid), socket directory \(directory.path)")
  for pump in pumps {
    DetachedThread.run {
      if let reason = pump.run() { lifecycle.end(because: reason) }
    }
  }
} catch {
  lifecycle.end(because: "could not start: \(error)")
  lifecycle.cleanUp()
  exit(1)
}

// The main thread started the worker and must outlive it: on Linux the worker's
// parent-death signal fires when this thread ends.
lifecycle.waitForEnd()
lifecycle.cleanUp()
exit(0)
