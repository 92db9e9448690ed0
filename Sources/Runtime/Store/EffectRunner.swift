extension Effect {
  /// True when the effect only sends actions or cancels, so it completes in the same pass.
  var isSynchronous: Bool {
    switch operation {
    case .none, .send, .cancel: true
    case .run: false
    case let .merge(children), let .concatenate(children): children.allSatisfy(\.isSynchronous)
    case let .cancellable(_, _, child): child.isSynchronous
    }
  }
}

/// Runs an effect to its end inside one task, for effects that must wait for one another.
struct EffectRunner<Action: Sendable>: Sendable {
  let effects: EffectRegistry
  let send: Send<Action>

  func run(_ effect: Effect<Action>, keys: [CancelKey]) async {
    switch effect.operation {
    case .none:
      return
    case let .send(action):
      await send(action)
    case let .run(_, body):
      await body(send)
    case let .merge(children):
      await withTaskGroup(of: Void.self) { group in
        for child in children { group.addTask { await run(child, keys: keys) } }
      }
    case let .concatenate(children):
      for child in children where !Task.isCancelled { await run(child, keys: keys) }
    case let .cancellable(key, cancelInFlight, child):
      if cancelInFlight { effects.cancel(exactly: key) }
      let keys = keys + [key]
      let task = effects.start(keys: keys, priority: nil) { await run(child, keys: keys) }
      await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
    case let .cancel(key):
      effects.cancel(key)
    }
  }
}
