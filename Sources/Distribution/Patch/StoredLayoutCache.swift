import Synchronization

/// One type's `StoredLayout` verdict, kept by the coding made for the type: found on the
/// first value asked about, then read with one atomic load, where `StoredLayout.of` takes a
/// lock and looks the type up in a table on every action.
final class StoredLayoutCache<Value>: Sendable {
  private final class Verdict: Sendable {
    let layout: StoredLayout?

    init(_ layout: StoredLayout?) { self.layout = layout }
  }

  private let verdict = AtomicLazyReference<Verdict>()

  /// `StoredLayout.of(Value.self, sample: sample)`, asked once.
  func layout(sample: Value) -> StoredLayout? {
    if let known = verdict.load() { return known.layout }
    return verdict.storeIfNil(Verdict(StoredLayout.of(Value.self, sample: sample))).layout
  }
}
