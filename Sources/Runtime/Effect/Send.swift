/// Sends actions from an effect back into the store that started it.
///
/// `await send(action)` returns after the store has processed `action`. Actions sent after
/// the effect was cancelled are dropped — checked again by the store as the action is
/// delivered, so an effect cancelled while its action waited for the store (by the action
/// just before it) changes nothing either.
///
/// ```swift
/// return .run { send in
///   await send(.response(try await apiClient.fetch()))
/// }
/// ```
public struct Send<Action: Sendable>: Sendable {
  let body: @Sendable (Action) async -> Void
  package let executor: EffectExecutor?

  /// A `Send` that hands each action to `send`; useful for driving effects by hand.
  ///
  /// ```swift
  /// let send = Send<Action> { action in received.append(action) }
  /// ```
  public init(send: @escaping @MainActor @Sendable (Action) -> Void) {
    self.init(send: send, executor: nil)
  }

  init(send: @escaping @MainActor @Sendable (Action) -> Void, executor: EffectExecutor?) {
    self.init(forward: { action in await send(action) }, executor: executor)
  }

  /// A send that hands each action to `forward`, which returns once the action is processed:
  /// how a worker's effects reach the host.
  package init(forward: @escaping @Sendable (Action) async -> Void, executor: EffectExecutor?) {
    self.body = forward
    self.executor = executor
  }

  /// Sends `action` to the store, unless the effect has been cancelled.
  ///
  /// ```swift
  /// await send(.timerTicked)
  /// ```
  public func callAsFunction(_ action: Action) async {
    guard !Task.isCancelled else { return }
    executor?.sendDidStart()
    defer { executor?.sendDidFinish() }
    await body(action)
  }

  func map<Child: Sendable>(_ transform: @escaping @Sendable (Child) -> Action) -> Send<Child> {
    Send<Child>(forward: { [body] child in await body(transform(child)) }, executor: executor)
  }
}
