/// A presented destination or stack element, as its operator runs it at its boundary: the
/// child's actions arrive as `.presented`, and its effects can dismiss it, which sends
/// `.dismiss` back up through the same boundary — so dismissal needs nothing special when the
/// child runs in a worker process.
///
/// `.dismiss` itself is handled by the operator, never by the child: it changes nothing here.
///
/// The boundaries inside a presented child are not listed, so a placement cannot put one of
/// them in a worker: `dismiss()` called by an effect there could not reach the dismissal that
/// this reducer sets up in the process that runs it. Place the destination or the stack whole.
struct PresentedChild<Child: Reducer>: Reducer {
  let child: Child

  func reduce(
    into state: inout Child.State, action: PresentationAction<Child.Action>
  ) -> Effect<PresentationAction<Child.Action>> {
    guard case let .presented(action) = action else { return .none }
    var dependencies = DependencyValues.current
    dependencies.dismiss = .presenting
    return DependencyValues.$current.withValue(dependencies) {
      child.reduce(into: &state, action: action)
    }
    .map(PresentationAction.presented)
    .dismissing(with: .dismiss)
  }
}
