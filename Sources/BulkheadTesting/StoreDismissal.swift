@_spi(Testing) import Bulkhead
import Synchronization

/// Whether the feature at the root of a test store dismissed itself, as TCA's test store
/// lets it: `dismiss()` in one of its effects cancels every effect of the store, and the
/// store takes no more actions.
///
/// Made before the store, whose dependencies hold it; `attach` then gives it the store's
/// cancellation.
final class StoreDismissal: Sendable {
  private struct State {
    var location: SourceLocation?
    var cancelEffects: @Sendable () -> Void = {}
  }

  private let state = Mutex(State())

  /// Where `dismiss()` was called, once it was.
  var location: SourceLocation? { state.withLock { $0.location } }

  /// The dismissal that the root feature's `dismiss` dependency runs.
  var effect: DismissEffect {
    .dismissingStore { [self] location in dismiss(at: location) }
  }

  /// Cancels the store's effects with `cancelEffects` when the feature dismisses itself.
  func attach(cancelling cancelEffects: @escaping @Sendable () -> Void) {
    state.withLock { $0.cancelEffects = cancelEffects }
  }

  /// Called in the effect that dismissed, before it goes on: cancelled with the others, it
  /// sends nothing more.
  private func dismiss(at location: SourceLocation) {
    let cancelEffects = state.withLock { state in
      if state.location == nil { state.location = location }
      return state.cancelEffects
    }
    cancelEffects()
  }
}
