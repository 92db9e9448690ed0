import Distributed
import Synchronization

/// A distributed method of `Actor`, named by a call through it (`{ try await $0.handle(.ping) }`)
/// rather than by a string, so that a renamed or changed method no longer compiles.
///
/// Its `RemoteCallTarget`, the mangled name by which the peer's runtime finds the method, is
/// what Swift hands the actor system when the call is made. It is read once, from that call
/// made on a stand-in that sends nothing (`SocketActorID.standIn`), and kept: calls from
/// synchronous code use it without a task, and the receiving side matches the targets the
/// peer names against it.
///
/// ```swift
/// let handle = MethodTarget<BoundaryEndpoint> { try await $0.handle(.ping) }
/// let target = try handle.target(using: system)
/// ```
package final class MethodTarget<Actor: DistributedActor>: Sendable where Actor.ActorSystem == SocketActorSystem {
  private let call: @Sendable (Actor) async throws -> Void
  /// The target's identifier once read (`RemoteCallTarget` is not `Sendable`; its identifier is).
  private let identifier = Mutex<String?>(nil)

  /// The method `call` calls; the arguments it passes are never sent.
  package init<Result>(_ call: @escaping @Sendable (Actor) async throws -> Result) {
    self.call = { actor in _ = try await call(actor) }
  }

  /// The method's target, read the first time on a stand-in resolved on `system`.
  ///
  /// - Throws: `MethodTargetError` when the call reaches no distributed method.
  package func target(using system: SocketActorSystem) throws(MethodTargetError) -> RemoteCallTarget {
    if let identifier = identifier.withLock({ $0 }) { return RemoteCallTarget(identifier) }
    let target = try system.target(of: call)
    identifier.withLock { $0 = target.identifier }
    return target
  }
}

/// A `MethodTarget` whose call reached no distributed method of its actor.
package struct MethodTargetError: Error, Codable, Equatable, CustomStringConvertible {
  /// The actor's type.
  package let actor: String
  /// What the call did instead.
  package let outcome: String

  package init(actor: String, outcome: String) {
    (self.actor, self.outcome) = (actor, outcome)
  }

  package var description: String {
    "a direct target of \(actor) names no distributed method: its call \(outcome)"
  }
}

/// What a call on a stand-in throws when it reaches the actor system: the target it named.
struct ReachedTarget: Error {
  let identifier: String
}

extension SocketActorID {
  /// The stand-in a `MethodTarget` calls through: never hosted, so always a remote proxy,
  /// and never sent to, as the system stops every call to it before it is written.
  package static let standIn = SocketActorID(number: 0)
}

extension SocketActorSystem {
  /// The target of the distributed method `call` calls, read from the call made on a stand-in
  /// of `Actor`: the call reaches `remoteCall`, which throws it back instead of sending it.
  /// It runs to its end here, without waiting: nothing in it suspends (`InlineExecutor`).
  func target<Actor: DistributedActor>(of call: @escaping @Sendable (Actor) async throws -> Void)
    throws(MethodTargetError) -> RemoteCallTarget where Actor.ActorSystem == SocketActorSystem
  {
    let type = String(reflecting: Actor.self)
    let standIn: Actor
    do {
      standIn = try Actor.resolve(id: .standIn, using: self)
    } catch {
      throw MethodTargetError(actor: type, outcome: "found no stand-in (\(error))")
    }
    let outcome = Mutex<Result<String, MethodTargetError>?>(nil)
    Task.immediate(executorPreference: InlineExecutor.shared) {
      let result: Result<String, MethodTargetError>
      do {
        try await call(standIn)
        result = .failure(MethodTargetError(actor: type, outcome: "returned without calling the system"))
      } catch let reached as ReachedTarget {
        result = .success(reached.identifier)
      } catch {
        result = .failure(MethodTargetError(actor: type, outcome: "threw \(error)"))
      }
      outcome.withLock { $0 = result }
    }
    guard let result = outcome.withLock({ $0 }) else {
      throw MethodTargetError(actor: type, outcome: "waited for something")
    }
    return RemoteCallTarget(try result.get())
  }
}
