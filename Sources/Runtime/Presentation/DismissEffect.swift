/// Dismisses the feature that reads it: a presented destination, or an element of a navigation
/// stack. Call it from an effect; the parent receives `.dismiss` (or `.popFrom(id:)` for a stack
/// element), runs its own logic, and removes the child, whose effects are cancelled.
///
/// ```swift
/// struct Editor: Reducer {
///   @Dependency(\.dismiss) var dismiss
///
///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
///     switch action {
///     case .saveButtonTapped:
///       return .run { [note = state.note] send in
///         await send(.delegate(.saved(note)))
///         await dismiss()
///       }
///     ...
/// ```
///
/// Outside a presented feature there is nothing to dismiss: the call is a runtime warning,
/// except at the root of a `TestStore`, which the call dismisses (its effects end, and it takes
/// no more actions).
public struct DismissEffect: Sendable {
  /// What runs instead of dismissing a presented feature, told where `dismiss()` was called.
  private let replacement: (@Sendable (SourceLocation) async -> Void)?

  /// A dismissal that runs `dismiss` instead: for testing a child feature on its own.
  ///
  /// ```swift
  /// let store = TestStore(initialState: Editor.State()) { Editor() } withDependencies: {
  ///   $0.dismiss = DismissEffect { dismissed.setTrue() }
  /// }
  /// ```
  public init(_ dismiss: @escaping @Sendable () async -> Void) {
    replacement = { _ in await dismiss() }
  }

  /// The dismissal of a store's root feature, which nothing presented: `dismiss` hears where
  /// `dismiss()` was called. Presented features below the root dismiss themselves as usual.
  ///
  /// ```swift
  /// $0.dismiss = .dismissingStore { location in dismissal.dismiss(at: location) }
  /// ```
  @_spi(Testing) public static func dismissingStore(
    _ dismiss: @escaping @Sendable (SourceLocation) -> Void
  ) -> DismissEffect {
    DismissEffect(replacement: { dismiss($0) })
  }

  /// The dismissal of whatever presented the effect that calls it.
  static let presenting = DismissEffect(replacement: nil)

  private init(replacement: (@Sendable (SourceLocation) async -> Void)?) {
    self.replacement = replacement
  }

  /// Dismisses the presented feature whose effect calls it, and returns once the parent has
  /// handled the dismissal. The calling effect is cancelled by then, so it sends nothing more.
  public func callAsFunction(fileID: StaticString = #fileID, line: UInt = #line) async {
    let location = SourceLocation(fileID: fileID, line: line)
    if let replacement { return await replacement(location) }
    guard let dismissal = Self.dismissal else {
      RuntimeWarning.report(
        """
        A reducer requested dismissal at \(location), but couldn't be dismissed: nothing \
        presented the feature whose effect called "dismiss()".

        "dismiss()" works in the effects of a feature that a parent presents with \
        "ifLet(\\.$destination, action:)" or pushes with "forEach(\\.path, action:)", and of \
        the features inside it. To fix this, present the feature that way, or have it send a \
        delegate action that tells its parent to remove it.
        """, at: location)
      return
    }
    await dismissal.send()
  }

  /// How the effect running now dismisses its feature: set by the operator that presented it.
  @TaskLocal static var dismissal: Dismissal?

  /// Runs `operation` where `dismiss()` calls `dismiss` rather than warning: how a worker lets
  /// an effect of a feature inside a presented one dismiss it, whose presenting operator runs
  /// in the host.
  ///
  /// ```swift
  /// await DismissEffect.withDismissal({ await askHostToDismiss() }) { await body(send) }
  /// ```
  package static func withDismissal(
    _ dismiss: @escaping @Sendable () async -> Void, operation: () async -> Void
  ) async {
    await $dismissal.withValue(Dismissal(send: dismiss), operation: operation)
  }

  /// Dismisses through the dismissal of the effect running now, as `dismiss()` does, and
  /// returns once the parent has handled it; false when nothing presented that effect. The
  /// host's stand-in for a worker's effect calls it when the worker's `dismiss()` arrives.
  ///
  /// ```swift
  /// if await !DismissEffect.dismissPresented() { warn("nothing to dismiss") }
  /// ```
  package static func dismissPresented() async -> Bool {
    guard let dismissal else { return false }
    await dismissal.send()
    return true
  }

  /// Sends the dismissal action of the feature whose effect is running. (A struct, not an
  /// optional closure: a task-local of optional async closure type crashed release builds made
  /// with cross-module optimization.)
  struct Dismissal: Sendable {
    let send: @Sendable () async -> Void
  }
}

extension DependencyValues {
  /// Dismisses the feature that reads it, from one of its effects: see `DismissEffect`.
  ///
  /// ```swift
  /// @Dependency(\.dismiss) var dismiss
  /// ```
  public var dismiss: DismissEffect {
    get { self[DismissKey.self] }
    set { self[DismissKey.self] = newValue }
  }
}

/// Process-local: the operator that presents a feature sets it in the process that runs the
/// feature. Nothing live about it, so tests use it as it is.
private enum DismissKey: ProcessLocalDependencyKey {
  static let liveValue = DismissEffect.presenting
  static let testValue = DismissEffect.presenting
}

extension Effect {
  /// The same effect, with each asynchronous body run where `dismiss()` sends `dismissal`
  /// through that body's own `send`: a presented child dismisses itself through its parent,
  /// as if the parent had been sent the action.
  func dismissing(with dismissal: Action) -> Self {
    switch operation {
    case .none, .send, .cancel:
      return self
    case let .run(priority, body):
      return Self(
        .run(priority: priority) { send in
          let dismissal = DismissEffect.Dismissal { await send(dismissal) }
          await DismissEffect.$dismissal.withValue(dismissal) { await body(send) }
        })
    case let .merge(effects):
      return Self(.merge(effects.map { $0.dismissing(with: dismissal) }))
    case let .concatenate(effects):
      return Self(.concatenate(effects.map { $0.dismissing(with: dismissal) }))
    case let .cancellable(key, cancelInFlight, effect):
      return Self(.cancellable(key, cancelInFlight: cancelInFlight, effect.dismissing(with: dismissal)))
    }
  }
}
