import Synchronization

/// Whether an `Effect.run` body has returned, so that a `send` escaped from it (into an
/// unstructured `Task`, a callback) can be reported when it is used afterwards.
final class EffectLifetime: Sendable {
  private let ended = Atomic(false)

  var hasEnded: Bool { ended.load(ordering: .acquiring) }

  func end() { ended.store(true, ordering: .releasing) }
}

extension Send {
  /// This send, reporting a runtime warning at `location` for each action sent after the
  /// effect's body returned. The action is still delivered, as TCA delivers it. The warning,
  /// and those raised while the store processes the action, go to `owner`, the handler of
  /// the effect's own task: a test store hears them whichever task sent the action late.
  func reportingUse(
    after lifetime: EffectLifetime, of location: SourceLocation, to owner: RuntimeWarning.Handler
  ) -> Send {
    Send(
      forward: { [body] action in
        guard lifetime.hasEnded else { return await body(action) }
        await owner.install {
          RuntimeWarning.report(
            """
            An "Effect.run" at \(location) sent an action after its body had returned; the \
            action was still delivered.

              Action:
                \(action)

            The effect's "send" escaped into work that outlived it (an unstructured "Task", a \
            callback). To fix it, await that work inside the "run" closure, so the effect \
            returns only after its last "send".
            """, at: location)
          await body(action)
        }
      }, executor: executor)
  }
}
