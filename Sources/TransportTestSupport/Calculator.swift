import Distributed
import Transport

/// A distributed actor for the transport's cross-process tests, hosted by the echo worker.
///
/// Do not read `id` of a local `Calculator` from another module: with Swift 6.3 on Linux the
/// value read is garbage (the same actor declared in the reading module reads correctly).
/// Name it by `Calculator.id` instead.
public distributed actor Calculator {
  public typealias ActorSystem = SocketActorSystem

  /// The name the worker hosts it under.
  public static let id = SocketActorID(number: 1)

  private var received: [Int] = []

  public init(actorSystem: SocketActorSystem) {
    self.actorSystem = actorSystem
  }

  public distributed func add(_ left: Int, _ right: Int) -> Int { left + right }

  /// Records `value` and returns every value recorded so far, in arrival order.
  public distributed func record(_ value: Int) -> [Int] {
    received.append(value)
    return received
  }

  public distributed func fail(_ message: String) throws {
    throw CalculatorError(message: message)
  }

  /// Never returns, for deadline and peer-death tests.
  public distributed func hang() async throws {
    try await Task.sleep(for: .seconds(3600))
  }
}

public struct CalculatorError: Error, CustomStringConvertible {
  public let message: String
  public var description: String { "CalculatorError: \(message)" }
}
