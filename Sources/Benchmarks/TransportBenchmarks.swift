import CSystem
import CoreBenchmarks
import Foundation
import Synchronization
import Transport
import TransportTestSupport

/// What the benchmark does when it runs as its own worker process.
enum WorkerMode: String {
  /// Echo 16-byte messages back, without framing: the raw baseline.
  case raw = "--raw-echo"
  /// The same, spinning briefly (`BriefSpin`) before each read, as Bulkhead's waits do.
  case rawSpinning = "--raw-echo-spinning"
  /// Echo frames back.
  case framed = "--framed-echo"
  /// Host a `Calculator` distributed actor.
  case actors = "--actors"
  /// Count frames until one of kind 1, then answer with the count.
  case sink = "--sink"

  func serve() async throws {
    let launch = try WorkerLaunch.receive()
    let connection = try launch.connect()
    switch self {
    case .raw, .rawSpinning:
      // Say when the handshake is over, so the host's first message cannot be read into the
      // framed connection's buffer.
      try [UInt8(0xAA)].withUnsafeBytes { try connection.socket.write($0) }
      var message = [UInt8](repeating: 0, count: 16)
      var spin = self == .rawSpinning ? BriefSpin() : nil
      while try readExactly(&message, from: connection.socket, spin: &spin) {
        try message.withUnsafeBytes { try connection.socket.write($0) }
      }
    case .framed:
      while let frame = try connection.receive() { try connection.send(frame) }
    case .actors:
      let system = SocketActorSystem(connection: connection)
      _ = system.hosting(Calculator.id) { Calculator(actorSystem: $0) }
      while true { try await Task.sleep(for: .seconds(3600)) }
    case .sink:
      var count: UInt64 = 0
      while let frame = try connection.receive() {
        if frame.kind == 1 {
          try connection.send(Frame(kind: 1, payload: withUnsafeBytes(of: count) { Array($0) }))
          count = 0
        } else {
          count += 1
        }
      }
    }
  }
}

private func readExactly(_ buffer: inout [UInt8], from socket: UnixSocket) throws -> Bool {
  var spin: BriefSpin?
  return try readExactly(&buffer, from: socket, spin: &spin)
}

private func readExactly(_ buffer: inout [UInt8], from socket: UnixSocket, spin: inout BriefSpin?) throws -> Bool {
  var offset = 0
  while offset < buffer.count {
    let read = try buffer.withUnsafeMutableBytes { bytes in
      let rest = UnsafeMutableRawBufferPointer(rebasing: bytes[offset...])
      // Spinning, each check is a read that does not wait, as `FramedConnection`'s are.
      var early = -1
      let checked = { () -> Bool in
        early = recv(socket.descriptor, rest.baseAddress, rest.count, Int32(MSG_DONTWAIT))
        return early >= 0
      }
      return try spin?.wait(until: checked) { early >= 0 ? early : try socket.read(into: rest) }
        ?? socket.read(into: rest)
    }
    if read == 0 { return false }
    offset += read
  }
  return true
}

/// A worker of this benchmark's own executable, connected and authenticated.
struct BenchmarkWorker {
  let process: WorkerProcess
  let connection: FramedConnection
  let directory: SocketDirectory

  init(_ mode: WorkerMode) throws {
    directory = try SocketDirectory.create()
    let listener = try UnixListener(path: directory.path(for: "bench"))
    let secret = LaunchSecret.random()
    process = try WorkerProcess(
      name: mode.rawValue, executable: URL(fileURLWithPath: CommandLine.arguments[0]),
      arguments: [mode.rawValue], socketPath: listener.path, secret: secret
    ) { line in
      // Standard error: standard output is the tables, which `compose.sh bench --write` keeps.
      FileHandle.standardError.write(Data("[\(line.worker)] \(line.text)\n".utf8))
    }
    CPULayout.place(worker: process.pid)
    connection = FramedConnection(try listener.accept())
    _ = try Handshake.verify(connection, secret: secret, expectedPID: process.pid)
  }

  func stop() async {
    process.closeInput()
    _ = await process.waitForExit()
    directory.remove()
  }
}

/// The round trip of 16 bytes over a Unix socket to an echoing worker, in nanoseconds; with
/// `spinning`, both sides spin briefly before each read, as Bulkhead's waits do.
func rawRoundTrip(iterations: Int, spinning: Bool = false) async throws -> Double {
  try await rawRoundTripWithCPU(iterations: iterations, spinning: spinning).nanoseconds
}

/// The raw round trip, and the CPU each side spends on one, in nanoseconds: the floor for the
/// remote action's CPU per side.
func rawRoundTripWithCPU(iterations: Int, spinning: Bool = false) async throws -> (nanoseconds: Double, cpu: (host: Double, worker: Double)) {
  var message = [UInt8](repeating: 7, count: 16)
  let raw = try BenchmarkWorker(spinning ? .rawSpinning : .raw)
  var ready = [UInt8(0)]
  _ = try readExactly(&ready, from: raw.connection.socket)
  var spin = spinning ? BriefSpin() : nil
  let cpuBefore = (host: processCPUTime(), worker: processCPUTime(of: raw.process.pid))
  let roundTrip = nanosecondsPerCall(iterations: iterations, rounds: 3) {
    try? message.withUnsafeBytes { try raw.connection.socket.write($0) }
    _ = try? readExactly(&message, from: raw.connection.socket, spin: &spin)
  }
  let trips = Double(3 * iterations)
  let cpu = ((processCPUTime() - cpuBefore.host) / trips, (processCPUTime(of: raw.process.pid) - cpuBefore.worker) / trips)
  await raw.stop()
  return (roundTrip, cpu)
}

/// Where the benchmark puts its processes: the host on CPU 0, and its workers on CPU 1 (two
/// cores: every message wakes the other core) or on CPU 0 too (one core: every message is a
/// context switch). Left to the scheduler, the two processes land on one core in some runs
/// and on two in others, and the ratios mean nothing.
enum CPULayout: Int32 {
  case twoCores = 1
  case oneCore = 0

  private static let workerCPU = Atomic<Int32>(-1)

  /// Puts this process on CPU 0, and the workers started from now on as the layout says.
  func apply() {
    _ = bulkhead_pin_to_cpu(getpid(), 0)
    Self.workerCPU.store(rawValue, ordering: .relaxed)
  }

  /// Puts a worker just started where the layout in force says.
  static func place(worker pid: Int32) {
    let cpu = workerCPU.load(ordering: .relaxed)
    if cpu >= 0 { _ = bulkhead_pin_to_cpu(pid, cpu) }
  }
}

/// The rows `measure` makes with its processes on two cores, then those it makes on one,
/// each labelled so.
@MainActor
func onTwoCoresThenOne(_ measure: (String) async throws -> [Row]) async rethrows -> [Row] {
  CPULayout.twoCores.apply()
  let twoCores = try await measure("two cores:")
  CPULayout.oneCore.apply()
  return twoCores + (try await measure("one core:"))
}

/// Round trips and throughput across a process boundary, each against the raw round trip of
/// 16 bytes over a Unix socket measured in the same run.
func transportBenchmarks(label: String) async throws -> [Row] {
  let iterations = 20_000
  var rows: [Row] = []

  // The raw baseline is the best of two workers, one measured before and one after the
  // rest, so that a slow moment of the machine does not flatter the ratios.
  let message = [UInt8](repeating: 7, count: 16)
  var rawTrip = try await rawRoundTrip(iterations: iterations)

  let framed = try BenchmarkWorker(.framed)
  let frame = Frame(kind: 2, payload: message)
  let framedTrip = nanosecondsPerCall(iterations: iterations, rounds: 3) {
    try? framed.connection.send(frame)
    _ = try? framed.connection.receive()
  }
  await framed.stop()
  rows.append(Row(name: "\(label) framed round trip", value: framedTrip / 1000, unit: "µs", baseline: rawTrip / 1000))

  let actors = try BenchmarkWorker(.actors)
  let system = SocketActorSystem(connection: actors.connection)
  let calculator = try Calculator.resolve(id: Calculator.id, using: system)
  _ = try await calculator.add(1, 1)
  let calls = iterations / 4
  let anyTask = try await nanosecondsPerCall(calls) {
    for index in 0..<calls { _ = try await calculator.add(index, 1) }
  }
  let onExecutor = try await nanosecondsPerCall(calls) {
    try await withTaskExecutorPreference(system.executor) { () async throws in
      for index in 0..<calls { _ = try await calculator.add(index, 1) }
    }
  }
  system.close()
  await actors.stop()
  rows.append(
    Row(name: "\(label) distributed actor call from any task", value: anyTask / 1000, unit: "µs", baseline: rawTrip / 1000, goal: .ratio(1.5)))
  rows.append(Row(name: "\(label) distributed actor call from a task on the system's executor", value: onExecutor / 1000, unit: "µs", baseline: rawTrip / 1000))

  // The host's hot path: a reducer calls synchronously and reads the reply itself.
  let synchronousActors = try BenchmarkWorker(.actors)
  let readByCaller = SocketActorSystem(connection: synchronousActors.connection, reading: .byCaller)
  let synchronousCalculator = try Calculator.resolve(id: Calculator.id, using: readByCaller)
  let synchronous = nanosecondsPerCall(iterations: calls, rounds: 3) {
    _ = try? callSynchronously { try await synchronousCalculator.add(1, 1) }
  }
  readByCaller.close()
  await synchronousActors.stop()
  rows.append(
    Row(
      name: "\(label) synchronous actor call, reply read by the caller", value: synchronous / 1000, unit: "µs",
      baseline: rawTrip / 1000))

  let sink = try BenchmarkWorker(.sink)
  let batch = [Frame](repeating: Frame(kind: 0, payload: message), count: 64)
  let batches = 2_000
  let perFrame = nanosecondsPerCall(iterations: 1, rounds: 3) {
    for _ in 0..<batches { try? sink.connection.send(batch) }
    try? sink.connection.send(Frame(kind: 1, payload: []))
    _ = try? sink.connection.receive()
  } / Double(batches * batch.count)
  await sink.stop()
  rows.append(Row(name: "\(label) pipelined one-way frame (batches of 64)", value: perFrame, unit: "ns", baseline: nil))
  rawTrip = min(rawTrip, try await rawRoundTrip(iterations: iterations))
  let baseline = Row(name: "\(label) raw 16-byte round trip", value: rawTrip / 1000, unit: "µs", baseline: nil)
  return [baseline]
    + rows.map { row in
      Row(
        name: row.name, value: row.value, unit: row.unit,
        baseline: row.unit == "ns" ? rawTrip : rawTrip / 1000, goal: row.goal)
    }
}

/// Spawn to authenticated and ready, against spawning `/bin/true` to its exit.
func startupBenchmarks() async throws -> [Row] {
  let clock = ContinuousClock()
  var bare = Duration.seconds(1000)
  var worker = Duration.seconds(1000)
  for _ in 0..<10 {
    bare = min(bare, try clock.measure {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/true")
      try process.run()
      _ = ProcessWatch.waitForExit(of: process.processIdentifier, milliseconds: 5_000)
    })
    var started: BenchmarkWorker?
    worker = min(worker, try clock.measure { started = try BenchmarkWorker(.framed) })
    await started?.stop()
  }
  func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
  }
  return [
    Row(name: "spawn /bin/true to exit", value: milliseconds(bare), unit: "ms", baseline: nil),
    Row(name: "spawn worker to authenticated", value: milliseconds(worker), unit: "ms", baseline: milliseconds(bare)),
  ]
}

/// The binary codec against Foundation's JSON, encoding and decoding one state.
func codecBenchmarks() throws -> [Row] {
  struct Sample: Codable, Equatable {
    var title = "Groceries"
    var items = (0..<20).map { "item \($0)" }
    var counts = Array(0..<20)
    var isDone = false
    var ratio = 0.25
  }
  let sample = Sample()
  let iterations = 2_000
  let json = nanosecondsPerCall(iterations: iterations, rounds: 3) {
    let data = try! JSONEncoder().encode(sample)
    blackHole(try! JSONDecoder().decode(Sample.self, from: data))
  }
  let binary = nanosecondsPerCall(iterations: iterations, rounds: 3) {
    let bytes = try! BinaryEncoder().encode(sample)
    blackHole(try! BinaryDecoder().decode(Sample.self, from: bytes))
  }
  let jsonSize = Double(try JSONEncoder().encode(sample).count)
  let binarySize = Double(try BinaryEncoder().encode(sample).count)
  return [
    Row(name: "JSON encode + decode", value: json / 1000, unit: "µs", baseline: nil),
    Row(name: "binary encode + decode", value: binary / 1000, unit: "µs", baseline: json / 1000),
    Row(name: "JSON size", value: jsonSize, unit: "bytes", baseline: nil),
    Row(name: "binary size", value: binarySize, unit: "bytes", baseline: jsonSize),
  ]
}
