import Synchronization

/// One type's `StoredLayout` verdict, kept by the coding made for the type: found on the
/// first value asked about, then read with one atomic load, where `StoredLayout.of` takes a
/// lock and looks the type up in a table on every action.
///
/// Not generic, nor is what it holds: code that runs unspecialized for a child's state would
/// otherwise look up the generic class's metadata on every action.
final class StoredLayoutCache: Sendable {
  private let verdict = AtomicLazyReference<StoredLayoutVerdict>()

  /// `StoredLayout.of(Value.self, sample: sample)`, asked once: every call must be for one type.
  func layout<Value>(of _: Value.Type, sample: Value) -> StoredLayout? {
    if let known = verdict.load() { return known.layout }
    return verdict.storeIfNil(StoredLayoutVerdict(StoredLayout.of(Value.self, sample: sample))).layout
  }
}

/// A layout, or nil for a type without one, as an object that an atomic reference can hold.
private final class StoredLayoutVerdict: Sendable {
  let layout: StoredLayout?

  init(_ layout: StoredLayout?) { self.layout = layout }
}
