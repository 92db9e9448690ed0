/// A writable key path, with the byte offset of its field when the path is a stored property
/// (or a chain of them) held inline in the root.
///
/// Through the offset an operator reaches a child's state with pointer arithmetic. Applying
/// a key path goes through the runtime's generic key path machinery instead, which costs
/// more than most reducers; and Swift 6 types a key path literal as `any WritableKeyPath &
/// Sendable`, which keeps the optimiser from turning the application into a field access.
struct FieldPath<Root, Value> {
  let keyPath: WritableKeyPath<Root, Value>
  /// Where the field lives in a `Root`, when it lives inline; -1 for computed properties,
  /// class references and other paths that must go through `keyPath`. (Not an optional, whose
  /// extra byte would grow every operator holding a field path past the size the compiler
  /// copies inline; see `Scope.StatePath`.)
  let offset: Int

  @inline(__always)
  init(_ keyPath: WritableKeyPath<Root, Value>) {
    self.keyPath = keyPath
    offset = MemoryLayout<Root>.offset(of: keyPath) ?? -1
  }

  /// Runs `body` on the field of `root` in place.
  @inline(__always)
  func modify<Result>(_ root: inout Root, _ body: (inout Value) -> Result) -> Result {
    guard offset >= 0 else { return body(&root[keyPath: keyPath]) }
    return withUnsafeMutablePointer(to: &root) { root in
      // `offset(of:)` promised directly addressable storage of type `Value` at this offset.
      let field = UnsafeMutableRawPointer(root).advanced(by: offset)
      return body(&field.assumingMemoryBound(to: Value.self).pointee)
    }
  }
}
