/// A presented destination or stack element, as its operator runs it at its boundary: the
/// child's actions arrive as `.presented`, and its effects can dismiss it, which sends
/// `.dismiss` back up through the same boundary — so dismissal needs nothing special when the
/// child runs in a worker process.
///
/// `.dismiss` itself is handled by the operator, never by the child: it changes nothing here.
///
/// The boundaries inside a presented child are listed under the operator's own path, without a
/// segment for `.presented` or the element (`destination.editor`, `path.detail`), as a user
/// reads the action. A worker that serves one of them forwards `dismiss()` to the host, whose
/// proxy of the effect dismisses through this reducer's dismissal (`DismissibleBoundary`).
struct PresentedChild<Child: Reducer>: Reducer, DismissibleBoundary {
  let child: Child

  func reduce(
    into state: inout Child.State, action: PresentationAction<Child.Action>
  ) -> Effect<PresentationAction<Child.Action>> {
    guard case let .presented(action) = action else { return .none }
    var dependencies = DependencyValues.current
    dependencies.dismiss = .presenting
    return DependencyValues.withValues(dependencies) {
      child.reduce(into: &state, action: action)
    }
    .map(PresentationAction.presented)
    .dismissing(with: .dismiss)
  }
}
