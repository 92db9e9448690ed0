/// The place of a presented or collected child in the feature tree: one element per `ifLet`,
/// `ifCaseLet` or `forEach` between the root and the child, each naming the child's identity.
///
/// Cancel identifiers are scoped by it: an effect registered at a path can be cancelled from
/// that path or from any prefix of it.
package struct NavigationPath: Hashable, Sendable {
  /// The steps before the last one, and the last one, which is nil only in the empty path: a
  /// path one step deep, as each element of a `forEach` at the root gets on every action it
  /// receives, is made without allocating an array.
  private var leading: [Step] = []
  private var last: Step?

  /// One element of the path, as it was given. A `forEach` element is kept as its two parts
  /// and erased to `AnyHashableSendable` only when the path is compared, hashed or listed: a
  /// path is made for every action an element receives and is rarely read, and erasing a
  /// generic value costs conformance lookups in the runtime each time.
  private enum Step: Equatable, Sendable {
    case erased(AnyHashableSendable)
    case element(holder: AnyHashableSendable, id: any Hashable & Sendable)

    var erased: AnyHashableSendable {
      switch self {
      case let .erased(element): element
      case let .element(holder, id): Self.identity(holder: holder, id: id)
      }
    }

    private static func identity(holder: AnyHashableSendable, id: some Hashable & Sendable) -> AnyHashableSendable {
      AnyHashableSendable(ElementIdentity(holder: holder, id: id))
    }

    static func == (lhs: Step, rhs: Step) -> Bool {
      if case let .element(lhsHolder, lhsID) = lhs, case let .element(rhsHolder, rhsID) = rhs {
        return lhsHolder == rhsHolder && isEqual(lhsID, rhsID)
      }
      return lhs.erased == rhs.erased
    }

    private static func isEqual<ID: Hashable>(_ lhs: ID, _ rhs: any Hashable & Sendable) -> Bool {
      (rhs as? ID) == lhs
    }
  }

  /// The steps from the root down.
  private var steps: [Step] { last.map { leading + [$0] } ?? [] }

  /// The elements from the root down, each as one identity.
  package var elements: [AnyHashableSendable] { steps.map(\.erased) }

  package func appending(_ element: some Hashable & Sendable) -> NavigationPath {
    appendingStep(.erased(AnyHashableSendable(element)))
  }

  /// The path one `forEach` element down: the element `id` of the collection that `holder`
  /// names.
  func appendingElement(_ id: some Hashable & Sendable, of holder: AnyHashableSendable) -> NavigationPath {
    appendingStep(.element(holder: holder, id: id))
  }

  private func appendingStep(_ step: Step) -> NavigationPath {
    var path = self
    if let last { path.leading.append(last) }
    path.last = step
    return path
  }

  func hasPrefix(_ prefix: NavigationPath) -> Bool {
    steps.starts(with: prefix.steps)
  }

  package static func == (lhs: NavigationPath, rhs: NavigationPath) -> Bool {
    lhs.last == rhs.last && lhs.leading == rhs.leading
  }

  package func hash(into hasher: inout Hasher) {
    hasher.combine(elements)
  }
}

/// The identity of one element of one `forEach`, for cancellation.
private struct ElementIdentity<ID: Hashable & Sendable>: Hashable, Sendable {
  let holder: AnyHashableSendable
  let id: ID
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
