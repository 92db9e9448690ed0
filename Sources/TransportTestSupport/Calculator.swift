import Distributed
import Transport

/// A distributed actor for the transport's cross-process tests, hosted by the echo worker.
///
/// Do not read `id` of a local `Calculator` from another module: with Swift 6.3 on Linux the
/// value read is garbage (the same actor declared in the reading module reads correctly).
/// Name it by `Calculator.id` instead.
package distributed actor Calculator {
  package typealias ActorSystem = SocketActorSystem

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

  package distributed func fail(_ message: String) throws {
    throw CalculatorError(message: message)
  }

  /// Never returns, for deadline and peer-death tests.
  package distributed func hang() async throws {
    try await Task.sleep(for: .seconds(3600))
  }
}

extension Calculator: DirectlyCallable {
  /// `add` and `note` are called directly; `record`, `fail` and `hang` by name.
  package static let directTargets: [String: DirectTarget<Calculator>] = [
    "add(_:_:)": DirectTarget { calculator, arguments in try await calculator.add(arguments.next(), arguments.next()) },
    "note(_:)": DirectTarget { calculator, arguments in try await calculator.note(arguments.next()) },
  ]
}

package struct CalculatorError: Error, CustomStringConvertible {
  package let message: String
  package var description: String { "CalculatorError: \(message)" }
}
