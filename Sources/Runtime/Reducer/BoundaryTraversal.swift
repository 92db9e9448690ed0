/// A composition boundary: a place in a reducer tree where a child reducer runs on part of the
/// state, and which a placement can move into a worker process. A reducer lists its own
/// (`boundaries`); a placement names them by `path`.
///
/// ```swift
/// for boundary in TwoCounters().boundaries { print(boundary) }  // counter1 (Scope → Counter)
/// ```
public struct BoundaryDescription: Sendable, Hashable, CustomStringConvertible {
  /// The operator that draws the boundary.
  public enum Kind: String, Sendable {
    case scope = "Scope", ifLet, ifCaseLet, forEach
  }

  /// The action case names from the root to the boundary, dotted: `"profile.editForm"`.
  public let path: String
  /// Which operator draws it.
  public let kind: Kind
  /// The child reducer's type, for people reading a listing.
  public let childType: String

  /// A boundary as the traversal finds it; a test may make one to check a placement against.
  package init(path: String, kind: Kind, childType: String) {
    self.path = path
    self.kind = kind
    self.childType = childType
  }

  /// The boundary as `./compose.sh boundaries` lists it: `counter1 (Scope → Counter)`.
  public var description: String { "\(path) (\(kind.rawValue) → \(childType))" }
}

extension Reducer {
  /// The boundaries in this reducer's tree, found without running it: every `Scope`, `ifLet`,
  /// `ifCaseLet` and `forEach`, named by the action cases that lead to it.
  ///
  /// ```swift
  /// TwoCounters().boundaries.map(\.path)  // ["counter1", "counter2"]
  /// ```
  public var boundaries: [BoundaryDescription] {
    var collector = BoundaryCollector()
    visitBoundaries(of: self, under: "", with: &collector)
    return collector.found
  }
}

/// Told about each boundary of a reducer tree, with the child reducer's concrete type.
package protocol BoundaryVisitor {
  mutating func visit<Child: Reducer>(
    _ child: Child, at path: String, kind: BoundaryDescription.Kind)
}

/// A reducer that draws boundaries or contains reducers that may; reducers made only of
/// closures (`Reduce`) contain none that can be seen.
protocol BoundaryContainer {
  func traverseBoundaries(under prefix: String, with visitor: inout some BoundaryVisitor)
}

/// Visits the boundaries of `reducer`, looking through `body` for reducers that have one.
package func visitBoundaries<R: Reducer>(
  of reducer: R, under prefix: String, with visitor: inout some BoundaryVisitor
) {
  if let container = reducer as? any BoundaryContainer {
    container.traverseBoundaries(under: prefix, with: &visitor)
  } else if R.Body.self != Never.self, let body = reducer.body as? any Reducer {
    visitBoundaries(of: body, under: prefix, with: &visitor)
  }
}

/// Visits the boundary of `child` and the boundaries inside it.
func traverseBoundary<Child: Reducer>(
  _ child: Child, named name: String?, kind: BoundaryDescription.Kind, under prefix: String,
  with visitor: inout some BoundaryVisitor
) {
  let path = BoundaryPath.joining(prefix, name ?? BoundaryPath.unnamed)
  visitor.visit(child, at: path, kind: kind)
  visitBoundaries(of: child, under: path, with: &visitor)
}

enum BoundaryPath {
  /// The segment of a boundary whose action path is not a chain of enum cases.
  static let unnamed = "(unnamed)"

  static func joining(_ prefix: String, _ name: String) -> String {
    prefix.isEmpty ? name : "\(prefix).\(name)"
  }
}

private struct BoundaryCollector: BoundaryVisitor {
  var found: [BoundaryDescription] = []

  mutating func visit<Child: Reducer>(
    _ child: Child, at path: String, kind: BoundaryDescription.Kind
  ) {
    let type = (Child.self as? any BoundaryStandIn.Type)?.standsInFor ?? Child.self
    found.append(BoundaryDescription(path: path, kind: kind, childType: "\(type)"))
  }
}

extension Scope: BoundaryContainer {
  func traverseBoundaries(under prefix: String, with visitor: inout some BoundaryVisitor) {
    traverseBoundary(
      child, named: toChildAction.staticName, kind: .scope, under: prefix, with: &visitor)
  }
}

extension _IfLetReducer: BoundaryContainer {
  func traverseBoundaries(under prefix: String, with visitor: inout some BoundaryVisitor) {
    traverseBoundary(
      child, named: toChildAction.staticName, kind: .ifLet, under: prefix, with: &visitor)
    visitBoundaries(of: parent, under: prefix, with: &visitor)
  }
}

extension _IfCaseLetReducer: BoundaryContainer {
  func traverseBoundaries(under prefix: String, with visitor: inout some BoundaryVisitor) {
    traverseBoundary(
      child, named: toChildAction.staticName, kind: .ifCaseLet, under: prefix, with: &visitor)
    visitBoundaries(of: parent, under: prefix, with: &visitor)
  }
}

extension _ForEachReducer: BoundaryContainer {
  func traverseBoundaries(under prefix: String, with visitor: inout some BoundaryVisitor) {
    traverseBoundary(
      element, named: toElementAction.staticName, kind: .forEach, under: prefix, with: &visitor)
    visitBoundaries(of: parent, under: prefix, with: &visitor)
  }
}

/// A reducer that an operator wraps around the child it was given, listed under that child's
/// type.
protocol BoundaryStandIn {
  static var standsInFor: Any.Type { get }
}

extension PresentedChild: BoundaryStandIn {
  static var standsInFor: Any.Type { (Child.self as? any BoundaryStandIn.Type)?.standsInFor ?? Child.self }
}

/// A feature is listed as itself, not as the builder's wrapper that keeps its body.
extension _BuiltBody: BoundaryStandIn {
  static var standsInFor: Any.Type { Base.self }
}

extension _BuiltBody: BoundaryContainer {
  func traverseBoundaries(under prefix: String, with visitor: inout some BoundaryVisitor) {
    visitBoundaries(of: base, under: prefix, with: &visitor)
  }
}

/// The boundaries inside a presented destination or a stack element are listed and placeable,
/// under the operator's path: `destination.editor`, `path.detail`.
extension PresentedChild: BoundaryContainer {
  func traverseBoundaries(under prefix: String, with visitor: inout some BoundaryVisitor) {
    visitBoundaries(of: child, under: prefix, with: &visitor)
  }
}

/// The child of a boundary whose effects can dismiss it: a presented destination or a stack
/// element. A visitor that sees one at `path` knows that `dismiss()` inside any boundary below
/// `path` dismisses through it.
///
/// ```swift
/// let dismissible = Child.self is any DismissibleBoundary.Type
/// ```
package protocol DismissibleBoundary {}

/// A presented destination is an `ifLet` boundary: its worker is retired when it is dismissed,
/// and the boundaries inside it are listed under its path.
extension _PresentationReducer: BoundaryContainer {
  func traverseBoundaries(under prefix: String, with visitor: inout some BoundaryVisitor) {
    traverseBoundary(
      PresentedChild(child: destination), named: toPresentationAction.staticName, kind: .ifLet,
      under: prefix, with: &visitor)
    visitBoundaries(of: parent, under: prefix, with: &visitor)
  }
}

/// A navigation stack is a `forEach` boundary: its elements can be spread over a pool, and a
/// popped element's worker forgets it; the boundaries inside its screens are listed under its
/// path, one child per element.
extension _StackReducer: BoundaryContainer {
  func traverseBoundaries(under prefix: String, with visitor: inout some BoundaryVisitor) {
    traverseBoundary(
      PresentedChild(child: destination), named: toStackAction.staticName, kind: .forEach,
      under: prefix, with: &visitor)
    visitBoundaries(of: parent, under: prefix, with: &visitor)
  }
}

extension _SequenceReducer: BoundaryContainer {
  func traverseBoundaries(under prefix: String, with visitor: inout some BoundaryVisitor) {
    visitBoundaries(of: first, under: prefix, with: &visitor)
    visitBoundaries(of: second, under: prefix, with: &visitor)
  }
}

extension _ConditionalReducer: BoundaryContainer {
  func traverseBoundaries(under prefix: String, with visitor: inout some BoundaryVisitor) {
    switch self {
    case let .first(reducer): visitBoundaries(of: reducer, under: prefix, with: &visitor)
    case let .second(reducer): visitBoundaries(of: reducer, under: prefix, with: &visitor)
    }
  }
}

extension Optional: BoundaryContainer where Wrapped: Reducer {
  func traverseBoundaries(under prefix: String, with visitor: inout some BoundaryVisitor) {
    if let self { visitBoundaries(of: self, under: prefix, with: &visitor) }
  }
}

extension CombineReducers: BoundaryContainer {
  func traverseBoundaries(under prefix: String, with visitor: inout some BoundaryVisitor) {
    visitBoundaries(of: reducers, under: prefix, with: &visitor)
  }
}

extension _DependencyReducer: BoundaryContainer {
  func traverseBoundaries(under prefix: String, with visitor: inout some BoundaryVisitor) {
    visitBoundaries(of: base, under: prefix, with: &visitor)
  }
}

extension _OnChangeReducer: BoundaryContainer {
  func traverseBoundaries(under prefix: String, with visitor: inout some BoundaryVisitor) {
    visitBoundaries(of: base, under: prefix, with: &visitor)
  }
}
