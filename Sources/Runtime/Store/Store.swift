/// Runs a feature: holds its state, runs its reducer for each action, and runs the effects
/// the reducer returns.
///
/// Actions are processed one at a time in the order they arrive. Actions that effects send
/// synchronously are processed in the same pass; observers see one state change per `send`.
///
/// ```swift
/// let store = Store(initialState: TwoCounters.State()) { TwoCounters() }
/// store.send(.counter1(.incrementButtonTapped))
/// store.state.counter1.count  // 1
/// ```
@MainActor
public final class Store<State, Action: Sendable> {
  /// The current state, changed only by the reducer.
  public private(set) var state: State

  private let reducer: (inout State, Action) -> Effect<Action>
  private let dependencies: DependencyValues
  private var buffer: [Action] = []
  private var isSending = false
  private var observers: [(State) -> Void] = []
  let effects: EffectRegistry

  /// A store for `reducer` starting from `initialState`, with dependencies changed by
  /// `prepareDependencies`.
  public convenience init<R: Reducer<State, Action>>(
    initialState: State,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in }
  ) {
    self.init(
      initialState: initialState, reducer: reducer, withDependencies: prepareDependencies,
      effectExecutor: nil)
  }

  /// A store whose effects run on `effectExecutor`, so that a test can wait for them to
  /// settle.
  @_spi(Testing) public init<R: Reducer<State, Action>>(
    initialState: State,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void,
    effectExecutor: EffectExecutor?
  ) {
    let reducer = reducer()
    var dependencies = DependencyValues.current.withFreshDefaults()
    prepareDependencies(&dependencies)
    self.state = initialState
    self.reducer = reducer.reduce(into:action:)
    self.dependencies = dependencies
    self.effects = EffectRegistry(executor: effectExecutor)
  }

  deinit {
    effects.cancelAll()
  }

  /// Processes `action`, and the actions its effects send synchronously, then tells the
  /// observers.
  ///
  /// - Returns: The effects started, to await or cancel.
  @discardableResult
  public func send(_ action: Action) -> StoreTask {
    buffer.append(action)
    guard !isSending else { return StoreTask([]) }
    isSending = true
    var tasks: [Task<Void, Never>] = []
    DependencyValues.$current.withValue(dependencies) {
      // A loop, not recursion: a long chain of synchronous actions cannot overflow the stack.
      var index = 0
      while index < buffer.count {
        let effect = reducer(&state, buffer[index])
        index += 1
        start(effect, keys: [], tasks: &tasks)
      }
    }
    buffer.removeAll(keepingCapacity: true)
    isSending = false
    for observer in observers { observer(state) }
    effects.changes.fire()
    return StoreTask(tasks)
  }

  /// Calls `observer` with the state after each `send`.
  public func observe(_ observer: @escaping (State) -> Void) {
    observers.append(observer)
  }

  private var sender: Send<Action> {
    Send(send: { [weak self] action in self?.send(action) }, executor: effects.executor)
  }

  private func start(_ effect: Effect<Action>, keys: [CancelKey], tasks: inout [Task<Void, Never>]) {
    switch effect.operation {
    case .none:
      break
    case let .send(action):
      buffer.append(action)
    case let .run(priority, body):
      let send = sender
      tasks.append(effects.start(keys: keys, priority: priority) { await body(send) })
    case let .merge(children):
      for child in children { start(child, keys: keys, tasks: &tasks) }
    case let .concatenate(children) where children.allSatisfy(\.isSynchronous):
      for child in children { start(child, keys: keys, tasks: &tasks) }
    case .concatenate:
      let runner = EffectRunner(effects: effects, send: sender)
      tasks.append(effects.start(keys: keys, priority: nil) { await runner.run(effect, keys: keys) })
    case let .cancellable(key, cancelInFlight, child):
      if cancelInFlight { effects.cancel(exactly: key) }
      start(child, keys: keys + [key], tasks: &tasks)
    case let .cancel(key):
      effects.cancel(key)
    }
  }
}

extension Store {
  /// How many effects are running. For test stores, which wait on effects.
  @_spi(Testing) public nonisolated var runningEffectCount: Int { effects.count }

  /// A number that changes whenever an action was processed or an effect finished.
  @_spi(Testing) public nonisolated var changeGeneration: Int { effects.changes.generation }

  /// Returns once an action was processed or an effect finished after `generation` was read.
  @_spi(Testing) public func waitForChange(after generation: Int) async {
    await effects.changes.wait(after: generation)
  }

  /// Wakes everyone waiting in `waitForChange(after:)`, for example when a deadline passes.
  @_spi(Testing) public nonisolated func signalChange() {
    effects.changes.fire()
  }

  /// Cancels every running effect.
  @_spi(Testing) public nonisolated func cancelAllEffects() {
    effects.cancelAll()
  }
}

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
