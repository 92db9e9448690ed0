import Distributed
import Transport

/// A distributed actor for the transport's cross-process tests, hosted by the echo worker.
///
/// Do not read `id` of a local `Calculator` from another module: with Swift 6.3 on Linux the
/// value read is garbage (the same actor declared in the reading module reads correctly).
/// Name it by `Calculator.id` instead.
package distributed actor Calculator {
  package typealias ActorSystem = SocketActorSystem

  /// Bound to its connection, so that `add` and `note` run on the thread that reads them.
  package nonisolated var unownedExecutor: UnownedSerialExecutor { actorSystem.executor.lane.asUnownedSerialExecutor() }

  /// The name the worker hosts it under.
  package static let id = SocketActorID(number: 1)

  private var received: [Int] = []

  package init(actorSystem: SocketActorSystem) {
    self.actorSystem = actorSystem
  }

  package distributed func add(_ left: Int, _ right: Int) -> Int { left + right }

  /// Records `value` and returns every value recorded so far, in arrival order.
  package distributed func record(_ value: Int) -> [Int] {
    received.append(value)
    return received
  }

  /// A message: records `value` and sends nothing back.
  package distributed func note(_ value: Int) {
    received.append(value)
  }

  /// Whether the call runs in a task: a method run on the reading thread as it is read runs
  /// in none.
  package distributed func runsInTask() -> Bool {
    withUnsafeCurrentTask { $0 != nil }
  }

  /// Throws a `CalculatorError`, which crosses as itself.
  package distributed func fail(_ message: String) throws {
    throw CalculatorError(message: message)
  }

  /// Throws a `PlainError`, which is not `Codable`: the caller learns its type and words.
  package distributed func failPlainly(_ message: String) throws {
    throw PlainError(message: message)
  }

  /// Never returns, for deadline and peer-death tests.
  package distributed func hang() async throws {
    try await Task.sleep(for: .seconds(3600))
  }
}

extension Calculator: ConnectionBound {
  /// `add`, `note` and `runsInTask` run on the reading thread as they are read; `record` is
  /// called directly in a task; `fail`, `failPlainly` and `hang` by name.
  package static let directTargets = [
    addTarget,
    DirectTarget(
      of: { try await $0.note(0) }, onReadingThread: { calculator, arguments in calculator.note(try arguments.next()) }),
    DirectTarget(of: { try await $0.runsInTask() }, onReadingThread: { calculator, _ in calculator.runsInTask() }),
    DirectTarget(of: { try await $0.record(0) }) { calculator, arguments in
      try await calculator.record(arguments.next())
    },
  ]

  /// `add(_:_:)`, also for calls from synchronous code.
  package static let addTarget = DirectTarget<Calculator>(
    of: { try await $0.add(0, 0) },
    onReadingThread: { calculator, arguments in calculator.add(try arguments.next(), try arguments.next()) })
}

/// What `Calculator.fail` throws: a value that crosses to the caller as itself.
package struct CalculatorError: CodableError, Equatable, CustomStringConvertible {
  package let message: String
  package init(message: String) { self.message = message }
  package var description: String { "CalculatorError: \(message)" }
}

/// What `Calculator.failPlainly` throws: an error that is not `Codable`.
package struct PlainError: Error, CustomStringConvertible {
  package let message: String
  package var description: String { "PlainError: \(message)" }
}
