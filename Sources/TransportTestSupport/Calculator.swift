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

  package distributed func fail(_ message: String) throws {
    throw CalculatorError(message: message)
  }

  /// Never returns, for deadline and peer-death tests.
  package distributed func hang() async throws {
    try await Task.sleep(for: .seconds(3600))
  }
}

package struct CalculatorError: Error, CustomStringConvertible {
  package let message: String
  package var description: String { "CalculatorError: \(message)" }
}
