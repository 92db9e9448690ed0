/// Sends actions from an effect back into the store that started it.
///
/// `await send(action)` returns after the store has processed `action`. Actions sent after
/// the effect was cancelled are dropped, so a cancelled effect cannot change state.
///
/// ```swift
/// return .run { send in
///   await send(.response(try await apiClient.fetch()))
/// }
/// ```
public struct Send<Action: Sendable>: Sendable {
  let body: @MainActor @Sendable (Action) -> Void
  let executor: EffectExecutor?

  /// A `Send` that hands each action to `send`; useful for driving effects by hand.
  public init(send: @escaping @MainActor @Sendable (Action) -> Void) {
    self.init(send: send, executor: nil)
  }

  init(send: @escaping @MainActor @Sendable (Action) -> Void, executor: EffectExecutor?) {
    self.body = send
    self.executor = executor
  }

  /// Sends `action` to the store, unless the effect has been cancelled.
  public func callAsFunction(_ action: Action) async {
    guard !Task.isCancelled else { return }
    executor?.sendDidStart()
    defer { executor?.sendDidFinish() }
    await body(action)
  }

  func map<Child: Sendable>(_ transform: @escaping @Sendable (Child) -> Action) -> Send<Child> {
    Send<Child>(send: { [body] child in body(transform(child)) }, executor: executor)
  }
}
