extension Effect {
  /// Makes this effect cancellable with `id`; with `cancelInFlight`, first cancels any effect
  /// already running with the same `id` in the same place of the feature tree.
  ///
  /// Identifiers are scoped like TCA's: `cancel(id:)` in a feature reaches the effects of that
  /// feature and of its presented or collected children, never a sibling's or a parent's.
  ///
  /// ```swift
  /// return .run { send in ... }.cancellable(id: CancelID.search, cancelInFlight: true)
  /// ```
  public func cancellable(
    id: some Hashable & Sendable, cancelInFlight: Bool = false
  ) -> Self {
    if case .none = operation, !cancelInFlight { return self }
    return Self(.cancellable(CancelKey(id: id), cancelInFlight: cancelInFlight, self))
  }

  /// Cancels the effects running with `id` in this feature and in its descendants.
  ///
  /// ```swift
  /// case .stopButtonTapped:
  ///   return .cancel(id: CancelID.timer)
  /// ```
  public static func cancel(id: some Hashable & Sendable) -> Self {
    Self(.cancel(CancelKey(id: id)))
  }

  /// Cancels every effect of the child whose place in the tree is `path`.
  static func cancel(childAt path: NavigationPath) -> Self {
    Self(.cancel(CancelKey(path: path)))
  }

  /// The effects of a child and then its parent, plus the cancellation of the child's effects
  /// when the parent removed the child or replaced it by one of another identity.
  static func childThenParent(
    _ childEffects: Self, _ parentEffects: Self,
    identityBefore: ChildIdentity?, identityAfter: ChildIdentity?
  ) -> Self {
    guard let identityBefore, identityBefore != identityAfter else {
      return childEffects.merge(with: parentEffects)
    }
    let path = NavigationPath.current.appending(identityBefore)
    return .merge(childEffects, parentEffects, .cancel(childAt: path))
  }

  /// Tags every effect of this child with its place in the tree, so removing the child can
  /// cancel them all.
  func cancellable(childAt path: NavigationPath) -> Self {
    if case .none = operation { return self }
    return Self(.cancellable(CancelKey(path: path), cancelInFlight: false, self))
  }
}

/// Where a cancellable effect lives: an identifier within a place of the feature tree.
package struct CancelKey: Hashable, Sendable {
  package let id: AnyHashableSendable?
  package let path: NavigationPath

  init(id: some Hashable & Sendable) {
    self.id = AnyHashableSendable(id)
    self.path = NavigationPath.current
  }

  init(path: NavigationPath) {
    self.init(id: nil, path: path)
  }

  package init(id: AnyHashableSendable?, path: NavigationPath) {
    self.id = id
    self.path = path
  }

  /// True when cancelling `self` reaches an effect registered under `key`: same identifier,
  /// and `key` lives here or below. An identifier that came from a worker matches by its
  /// description, whichever of the two it is.
  func covers(_ key: CancelKey) -> Bool {
    key.path.hasPrefix(path) && hasSameID(as: key)
  }

  /// True when `key` is this very key: the same place, and the same identifier. What
  /// `cancelInFlight` cancels.
  func isSame(as key: CancelKey) -> Bool {
    key.path == path && hasSameID(as: key)
  }

  /// Whether the two identifiers are the same, one of them perhaps described by a worker:
  /// an effect of a worker's cancelled from the host, or (once a boundary moved) an effect
  /// of the host's cancelled by a worker.
  private func hasSameID(as key: CancelKey) -> Bool {
    if id == key.id { return true }
    guard let id, let other = key.id else { return false }
    switch (id.base.base as? ForeignHashable, other.base.base as? ForeignHashable) {
    case (nil, let foreign?): return foreign == ForeignHashable(describing: id)
    case (let foreign?, nil): return foreign == ForeignHashable(describing: other)
    default: return false
    }
  }
}
