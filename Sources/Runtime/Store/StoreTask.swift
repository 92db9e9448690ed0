/// The effects started by one `send`, and by the actions those effects send in turn: await
/// them, or cancel them.
///
/// ```swift
/// let task = store.send(.startTimerButtonTapped)
/// task.cancel()  // cancels the timer, and whatever its ticks started
/// ```
public struct StoreTask: Hashable, Sendable {
  let group: EffectGroup?

  init(_ group: EffectGroup?) {
    self.group = group
  }

  /// The task of a send that started no effects.
  @_spi(Testing) public static var empty: StoreTask { StoreTask(nil) }

  /// Cancels the effects, including those that start later from their actions.
  ///
  /// ```swift
  /// store.send(.onAppear).cancel()
  /// ```
  public func cancel() { group?.cancel() }

  /// Waits until every effect has finished; cancelling the waiting task cancels the effects.
  ///
  /// ```swift
  /// await store.send(.refresh).finish()
  /// ```
  public func finish() async {
    guard let group else { return }
    await withTaskCancellationHandler {
      await group.wait()
    } onCancel: {
      group.cancel()
    }
  }

  /// True when the effects were cancelled, or when the action started none.
  ///
  /// ```swift
  /// store.send(.increment).isCancelled  // true: nothing to run
  /// ```
  public var isCancelled: Bool { group?.isCancelled ?? true }

  /// True when no effect of this send is running.
  @_spi(Testing) public var isFinished: Bool { group?.isFinished ?? true }

  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.group === rhs.group }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(group.map(ObjectIdentifier.init))
  }
}
