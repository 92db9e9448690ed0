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
  /// The dependencies the reducer runs with, and the effects it creates capture. A test
  /// store changes them between steps.
  @_spi(Testing) public var dependencies: DependencyValues {
    get { dependencyValues.values }
    set { dependencyValues.values = newValue }
  }
  /// Where `dependencies` are kept: in force for each `send` without a copy.
  private let dependencyValues: StoreDependencies.Box
  // Not checked for exclusive access at run time, which cost a thread-local lookup per access
  // and a dozen accesses per `send` (measured: a fifth of its time). Safe: the store is on the
  // main actor, and every access to these three is a read, an append or an assignment that
  // ends before any call that could reenter the store (an observer, a reducer, an effect), so
  // no two accesses can overlap. `state` stays checked: the reducer changes it in place, and
  // reading it from inside the reducer is the mistake those checks catch.
  @exclusivity(unchecked) private var buffer: [Action] = []
  @exclusivity(unchecked) private var isSending = false
  @exclusivity(unchecked) private var observers: [(State) -> Void] = []
  let effects: EffectRegistry

  /// A store for `reducer` starting from `initialState`, with dependencies changed by
  /// `prepareDependencies`.
  ///
  /// ```swift
  /// let store = Store(initialState: Feature.State()) { Feature() } withDependencies: {
  ///   $0.uuid = .incrementing
  /// }
  /// ```
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
  ///
  /// ```swift
  /// let store = Store(initialState: .init(), reducer: { Feature() },
  ///                   withDependencies: { _ in }, effectExecutor: EffectExecutor())
  /// ```
  @_spi(Testing) public init<R: Reducer<State, Action>>(
    initialState: State,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void,
    effectExecutor: EffectExecutor?
  ) {
    let reducer = reducer()
    var dependencies = DependencyValues.current.withFreshDefaults()
    dependencies.update(prepareDependencies)
    self.state = initialState
    self.reducer = reducer.reduce(into:action:)
    self.dependencyValues = StoreDependencies.Box(dependencies)
    self.effects = EffectRegistry(executor: effectExecutor)
  }

  deinit {
    effects.cancelAll()
  }

  /// Processes `action`, and the actions its effects send synchronously, then tells the
  /// observers.
  ///
  /// Called while the store is processing an action (from an observer, say), it queues
  /// `action` to run after the current one and reports a runtime warning at the caller.
  ///
  /// ```swift
  /// store.send(.incrementButtonTapped)
  /// ```
  ///
  /// - Returns: The effects started, and those their actions start in turn, to await or
  ///   cancel.
  @discardableResult
  public func send(
    _ action: Action, fileID: StaticString = #fileID, line: UInt = #line
  ) -> StoreTask {
    guard !isSending else {
      buffer.append(action)
      RuntimeWarning.report(
        """
        Sent \(renderHeadline(action)) with "Store.send" at \
        \(SourceLocation(fileID: fileID, line: line)) while the store was processing an \
        action: it was queued, and runs after that action.

          Action:
            \(render(action).joined(separator: "\n    "))

        Sending from an observer or from a reducer is reentrant and its order is easy to get \
        wrong. To fix it, return the action as an effect (".send(action)") from the reducer, \
        or send it after the observer returns.
        """, at: SourceLocation(fileID: fileID, line: line))
      return StoreTask(nil)
    }
    return StoreTask(process(action, in: nil))
  }

  /// Calls `observer` with the state after each `send`. Observers run before the store is
  /// done with the action: an action they send is queued behind it and reported.
  ///
  /// ```swift
  /// store.observe { print("count:", $0.count) }
  /// ```
  public func observe(_ observer: @escaping (State) -> Void) {
    observers.append(observer)
  }

  /// Runs `action` and everything queued behind it, then the observers; actions the
  /// observers send run next, in another pass. Effects started join `group`, which is made
  /// when the first one starts.
  private func process(_ action: Action, in group: EffectGroup?) -> EffectGroup? {
    var group = group
    // The buffer is empty here: a pass ends only once it is. The action runs straight from
    // here, then those queued behind it from the buffer.
    var first: Action? = action
    repeat {
      isSending = true
      StoreDependencies.withValues(in: dependencyValues) {
        if let action = first {
          first = nil
          let effect = reducer(&state, action)
          // Most actions return no effect: no call to make for it.
          if !effect.isNone { start(effect, keys: [], group: &group) }
        }
        // A loop, not recursion: a long chain of synchronous actions cannot overflow the stack.
        var index = 0
        while index < buffer.count {
          let effect = reducer(&state, buffer[index])
          index += 1
          if !effect.isNone { start(effect, keys: [], group: &group) }
        }
      }
      if !buffer.isEmpty { buffer.removeAll(keepingCapacity: true) }
      // Still sending: an observer's `send` is queued (and reported), not run inside this one.
      for observer in observers { observer(state) }
      isSending = false
    } while !buffer.isEmpty
    effects.changes.fire()
    return group
  }

  /// The `Send` of effects in `group`. Whether the effect was cancelled is checked here, on
  /// the store's actor as the action is delivered, not before the hop to it: an effect
  /// cancelled while its action waited for the store (by an action processed just before)
  /// delivers nothing. Actions sent arriving start their effects in the same group.
  private func sender(in group: EffectGroup) -> Send<Action> {
    Send(
      send: { [weak self] action in
        guard !Task.isCancelled, let self else { return }
        if isSending {
          buffer.append(action)
        } else {
          _ = process(action, in: group)
        }
      }, executor: effects.executor)
  }

  private func start(_ effect: Effect<Action>, keys: [CancelKey], group: inout EffectGroup?) {
    switch effect.operation {
    case .none:
      break
    case let .send(action):
      buffer.append(action)
    case let .run(priority, body):
      let effectGroup = group.createdIfNeeded()
      let send = sender(in: effectGroup)
      effects.start(keys: keys, priority: priority, group: effectGroup) { await body(send) }
    case let .merge(children):
      for child in children { start(child, keys: keys, group: &group) }
    case let .concatenate(children) where children.allSatisfy(\.isSynchronous):
      for child in children { start(child, keys: keys, group: &group) }
    case .concatenate:
      let effectGroup = group.createdIfNeeded()
      let runner = EffectRunner(effects: effects, send: sender(in: effectGroup))
      effects.start(keys: keys, priority: nil, group: effectGroup) {
        await runner.run(effect, keys: keys)
      }
    case let .cancellable(key, cancelInFlight, child):
      if cancelInFlight { effects.cancel(exactly: key) }
      start(child, keys: keys + [key], group: &group)
    case let .cancel(key):
      effects.cancel(key)
    }
  }
}

extension Optional where Wrapped == EffectGroup {
  /// The group, made now if there is none yet.
  fileprivate mutating func createdIfNeeded() -> EffectGroup {
    if let group = self { return group }
    let group = EffectGroup()
    self = group
    return group
  }
}

extension Store {
  /// How many effects are running. For test stores, which wait on effects.
  @_spi(Testing) public nonisolated var runningEffectCount: Int { effects.count }

  /// How many running effects a test store still waits for: those it did not skip.
  @_spi(Testing) public nonisolated var trackedEffectCount: Int { effects.trackedCount }

  /// Stops waiting for the effects running now, without cancelling them.
  @_spi(Testing) public nonisolated func untrackRunningEffects() {
    effects.untrackAll()
  }

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

  /// Cancels every running effect when called, from any thread. It holds the effects, not
  /// the store, so that what the store holds can keep it.
  @_spi(Testing) public nonisolated var effectCancellation: @Sendable () -> Void {
    { [effects] in effects.cancelAll() }
  }
}
