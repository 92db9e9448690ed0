/// The place of a presented or collected child in the feature tree: one element per `ifLet`,
/// `ifCaseLet` or `forEach` between the root and the child, each naming the child's identity.
///
/// Cancel identifiers are scoped by it: an effect registered at a path can be cancelled from
/// that path or from any prefix of it.
package struct NavigationPath: Hashable, Sendable {
  package private(set) var elements: [AnyHashableSendable] = []

  /// The path of the reducer that is running now.
  @TaskLocal package static var current = NavigationPath()

  package func appending(_ element: some Hashable & Sendable) -> NavigationPath {
    var path = self
    path.elements.append(AnyHashableSendable(element))
    return path
  }

  func hasPrefix(_ prefix: NavigationPath) -> Bool {
    elements.starts(with: prefix.elements)
  }
}

/// The identity of a child for cancellation: the operator that holds it and, for identifiable
/// or enum state, which child it is. Replacing a child by one of another identity cancels the
/// effects of the old one.
struct ChildIdentity: Hashable, Sendable {
  let holder: AnyHashableSendable
  let identity: AnyHashableSendable?

  init<State>(of state: State, heldBy holder: AnyHashableSendable) {
    self.holder = holder
    if let identifiable = state as? any Identifiable {
      identity = identifiable.erasedID
    } else if let layout = EnumLayout.of(State.self) {
      identity = AnyHashableSendable(layout.tag(of: state))
    } else {
      identity = nil
    }
  }
}

extension Identifiable {
  fileprivate var erasedID: AnyHashableSendable { AnyHashableSendable(id: id) }
}
