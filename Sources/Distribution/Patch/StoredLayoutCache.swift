import Synchronization

/// One type's `StoredLayout` verdict, kept by the coding made for the type: found on the
/// first value asked about, then read with one atomic load, where `StoredLayout.of` takes a
/// lock and looks the type up in a table on every action.
///
/// Not generic, nor is what it holds: code that runs unspecialized for a child's state would
/// otherwise look up the generic class's metadata on every action. And an `Atomic` of a
/// concrete type, not an `AtomicLazyReference`, whose `load` the library runs unspecialized
/// (a metadata lookup and a generic `Optional.map` on every action).
final class StoredLayoutCache: Sendable {
  /// The verdict once found, retained by this cache until it goes.
  private let verdict = Atomic<Unmanaged<StoredLayoutVerdict>?>(nil)

  /// `StoredLayout.of(Value.self, sample: sample)`, asked once: every call must be for one type.
  func layout<Value>(of _: Value.Type, sample: Value) -> StoredLayout? {
    if let known = verdict.load(ordering: .acquiring) { return known.takeUnretainedValue().layout }
    let found = Unmanaged.passRetained(StoredLayoutVerdict(StoredLayout.of(Value.self, sample: sample)))
    let (stored, first) = verdict.compareExchange(expected: nil, desired: found, ordering: .acquiringAndReleasing)
    if stored { return found.takeUnretainedValue().layout }
    // Another thread found it first: keep its verdict, which is the same.
    found.release()
    return first?.takeUnretainedValue().layout
  }

  deinit {
    verdict.load(ordering: .acquiring)?.release()
  }
}

/// A layout, or nil for a type without one, as an object that an atomic reference can hold.
private final class StoredLayoutVerdict: Sendable {
  let layout: StoredLayout?

  init(_ layout: StoredLayout?) { self.layout = layout }
}
