/// Sends actions from an effect back into the store that started it.
///
/// `await send(action)` returns after the store has processed `action`. Actions sent after
/// the effect was cancelled are dropped — checked again by the store as the action is
/// delivered, so an effect cancelled while its action waited for the store (by the action
/// just before it) changes nothing either. An effect that runs in a worker process is the
/// exception: its `send` returns once the action is on its way to the host, which processes
/// the actions in order, so that a stream of them does not wait a round trip each.
///
/// ```swift
/// return .run { send in
///   await send(.response(try await apiClient.fetch()))
/// }
/// ```
public struct Send<Action: Sendable>: Sendable {
  let body: @Sendable (Action) async -> Void
  package let executor: EffectExecutor?
  /// The store's own delivery, when the store is on the main actor: see `inOneHop(_:_:)`.
  let deliveredOnMainActor: (@MainActor @Sendable (Action) -> Void)?

  /// A `Send` that hands each action to `send`; useful for driving effects by hand.
  ///
  /// ```swift
  /// let send = Send<Action> { action in received.append(action) }
  /// ```
  public init(send: @escaping @MainActor @Sendable (Action) -> Void) {
    self.init(send: send, executor: nil)
  }

  init(send: @escaping @MainActor @Sendable (Action) -> Void, executor: EffectExecutor?) {
    self.init(forward: { action in await send(action) }, executor: executor, deliveredOnMainActor: send)
  }

  /// A send that hands each action to `forward`, which returns once the action is processed:
  /// how a worker's effects reach the host.
  package init(forward: @escaping @Sendable (Action) async -> Void, executor: EffectExecutor?) {
    self.init(forward: forward, executor: executor, deliveredOnMainActor: nil)
  }

  private init(
    forward: @escaping @Sendable (Action) async -> Void, executor: EffectExecutor?,
    deliveredOnMainActor: (@MainActor @Sendable (Action) -> Void)?
  ) {
    self.body = forward
    self.executor = executor
    self.deliveredOnMainActor = deliveredOnMainActor
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

  /// Hands each of `items` to `each`, in order, with a synchronous send, all in one hop to the
  /// store's actor, and returns their results; nil when the store has no synchronous delivery
  /// (then send one at a time). For a burst of actions, such as those a worker's effect
  /// streams to the host: one hop instead of one per action. Actions sent once the calling
  /// task is cancelled are dropped, as `callAsFunction` drops them.
  package func inOneHop<Item: Sendable, Result: Sendable>(
    _ items: [Item], _ each: @escaping @Sendable (Item, _ send: (Action) -> Void) -> Result
  ) async -> [Result]? {
    guard let deliver = deliveredOnMainActor else { return nil }
    executor?.sendDidStart()
    defer { executor?.sendDidFinish() }
    return await MainActor.run {
      items.map { item in
        each(item) { action in
          guard !Task.isCancelled else { return }
          deliver(action)
        }
      }
    }
  }

  func map<Child: Sendable>(_ transform: @escaping @Sendable (Child) -> Action) -> Send<Child> {
    var deliverChild: (@MainActor @Sendable (Child) -> Void)?
    if let deliver = deliveredOnMainActor {
      deliverChild = { @MainActor child in deliver(transform(child)) }
    }
    return Send<Child>(
      forward: { [body] child in await body(transform(child)) }, executor: executor,
      deliveredOnMainActor: deliverChild)
  }
}
