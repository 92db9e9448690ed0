import CoreBenchmarks
import Transport
import TransportTestSupport

/// What one distributed actor call costs besides the socket, part by part, in one process:
/// laying out its arguments and result, the continuation the caller waits on, the task that
/// runs an incoming call, and finding and invoking the target. Each row's baseline is a direct
/// call of the same method on a local actor.
func actorCallBenchmarks() async throws -> [Row] {
  let iterations = 20_000
  let (left, right) = try UnixSocket.pair()
  let caller = SocketActorSystem(connection: FramedConnection(left))
  let callee = SocketActorSystem(connection: FramedConnection(right))
  defer {
    caller.close()
    callee.close()
  }
  let local = callee.hosting(Calculator.id) { Calculator(actorSystem: $0) }
  let remote = try Calculator.resolve(id: Calculator.id, using: caller)
  _ = try await remote.add(1, 2)
  guard let target = caller.calledTargets.first else { return [] }

  let direct = try await nanosecondsPerCall(iterations) {
    for index in 0..<iterations { blackHole(try await local.add(index, 1)) }
  }
  let codec = nanosecondsPerCall(iterations: iterations, rounds: 3) {
    var arguments = ByteWriter()
    7.write(to: &arguments)
    1.write(to: &arguments)
    var reader = ByteReader(arguments.bytes)
    let sum = ((try? Int(from: &reader)) ?? 0) + ((try? Int(from: &reader)) ?? 0)
    var result = ByteWriter()
    sum.write(to: &result)
    var answer = ByteReader(result.bytes)
    blackHole(try? Int(from: &answer))
  }
  let checked = try await nanosecondsPerCall(iterations) {
    for index in 0..<iterations {
      blackHole(await withCheckedContinuation { $0.resume(returning: index) })
    }
  }
  let unsafe = try await nanosecondsPerCall(iterations) {
    for index in 0..<iterations {
      blackHole(await withUnsafeContinuation { $0.resume(returning: index) })
    }
  }
  let queuedTask = try await nanosecondsPerCall(iterations) {
    for index in 0..<iterations {
      blackHole(await Task(executorPreference: callee.executor) { index }.value)
    }
  }
  let immediateTask = try await nanosecondsPerCall(iterations) {
    for index in 0..<iterations {
      blackHole(await Task.immediate(executorPreference: callee.executor) { index }.value)
    }
  }
  var arguments = ByteWriter()
  7.write(to: &arguments)
  1.write(to: &arguments)
  let invocation = arguments.bytes
  let invoke = try await nanosecondsPerCall(iterations) {
    for _ in 0..<iterations {
      try await callee.invokeLocally(Calculator.id, target: target, arguments: invocation)
    }
  }
  let invokeDirect = try await nanosecondsPerCall(iterations) {
    for _ in 0..<iterations {
      try await callee.invokeLocally(Calculator.id, target: target, arguments: invocation, direct: true)
    }
  }
  let inProcess = try await nanosecondsPerCall(iterations / 4) {
    try await withTaskExecutorPreference(caller.executor) { () async throws in
      for index in 0..<(iterations / 4) { blackHole(try await remote.add(index, 1)) }
    }
  }
  let readByCaller = try synchronousCallCost(iterations / 4)
  return [
    Row(name: "direct call of a local actor's method", value: direct, unit: "ns", baseline: nil),
    Row(name: "codec: two Int arguments and the result", value: codec, unit: "ns", baseline: direct),
    Row(name: "checked continuation, resumed at once", value: checked, unit: "ns", baseline: direct),
    Row(name: "unsafe continuation, resumed at once", value: unsafe, unit: "ns", baseline: direct),
    Row(name: "a task per incoming call, queued on the reading thread", value: queuedTask, unit: "ns", baseline: direct),
    Row(name: "a task per incoming call, started at once (Task.immediate)", value: immediateTask, unit: "ns", baseline: direct),
    Row(name: "finding and invoking the target (executeDistributedTarget)", value: invoke, unit: "ns", baseline: direct),
    Row(name: "the target resolved once and called directly", value: invokeDirect, unit: "ns", baseline: direct),
    Row(name: "whole call to another system in this process (socket pair)", value: inProcess, unit: "ns", baseline: direct),
    Row(name: "the same, synchronous, reply read by the caller", value: readByCaller, unit: "ns", baseline: direct),
  ]
}

/// A whole call from synchronous code to a system in this process whose caller reads the reply.
private func synchronousCallCost(_ iterations: Int) throws -> Double {
  let (caller, callee, remote) = try calculatorPair(reading: .byCaller)
  defer {
    caller.close()
    callee.close()
  }
  return nanosecondsPerCall(iterations: iterations, rounds: 3) {
    blackHole(try? callSynchronously { try await remote.add(1, 1) })
  }
}
