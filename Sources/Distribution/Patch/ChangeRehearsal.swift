extension StatePatch {
  /// Takes, on `value`, the path that a first change of a value of its type takes, and of each
  /// of its stored fields down its layout, and throws the patches away. The first time in a
  /// process, that path's casts (to `SplicePatchable`, a layout's fields' codings, equality)
  /// each make the runtime scan every loaded library's conformances; a worker template takes it
  /// on a sample of each child's state, so that the forks claimed for a first action inherit
  /// them. No field needs to differ: the casts are of types, not values.
  static func rehearseChange<Value: Encodable>(of value: Value, depth: Int = 0) {
    guard depth < maximumDepth else { return }
    // Errors only mean a path left for the worker to take, as it would have.
    _ = try? difference(from: value, to: value, depth: depth)
    _ = try? changes(from: value, to: value, depth: depth)
    guard let layout = StoredLayout.of(Value.self, sample: value) else { return }
    withUnsafeBytes(of: value) { bytes in
      for field in layout.fields { field.coding.rehearseChange(bytes.baseAddress! + field.offset, depth + 1) }
    }
  }
}
