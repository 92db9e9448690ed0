/// A writable key path, reduced to the byte offset of its field when the path is a stored
/// property (or a chain of them) held inline in the root.
///
/// Through the offset an operator reaches a child's state with pointer arithmetic. Applying
/// a key path goes through the runtime's generic key path machinery instead, which costs
/// more than most reducers; and Swift 6 types a key path literal as `any WritableKeyPath &
/// Sendable`, which keeps the optimiser from turning the application into a field access.
///
/// The offset case holds no reference: a reducer that holds one is copied, and its field path
/// read, with no reference counting on the path of every action.
enum FieldPath<Root, Value> {
  /// The field lives inline, this many bytes into a `Root`.
  case offset(Int)
  /// A computed property, a class reference or another path that must go through the key
  /// path.
  case keyPath(WritableKeyPath<Root, Value>)

  @inline(__always)
  init(_ keyPath: WritableKeyPath<Root, Value>) {
    if let offset = MemoryLayout<Root>.offset(of: keyPath) {
      self = .offset(offset)
    } else {
      self = .keyPath(keyPath)
    }
  }

  /// What `body` makes of the field of `root`, read as a getter reads it: a key path to a
  /// property with a setter or observers is not written back. By offset the field is read in
  /// place, not copied (a copy of a collection retains its buffers); `root` is `inout` only so
  /// that it is not copied either.
  @inline(__always)
  func reading<Result>(_ root: inout Root, _ body: (Value) -> Result) -> Result {
    switch self {
    case let .offset(offset):
      return withUnsafeMutablePointer(to: &root) { root in
        body(UnsafeMutableRawPointer(root).advanced(by: offset).assumingMemoryBound(to: Value.self).pointee)
      }
    case let .keyPath(keyPath):
      return body(root[keyPath: keyPath])
    }
  }

  /// Runs `body` on the field of `root` in place.
  @inline(__always)
  func modify<Result>(_ root: inout Root, _ body: (inout Value) -> Result) -> Result {
    switch self {
    case let .offset(offset):
      return withUnsafeMutablePointer(to: &root) { root in
        // `offset(of:)` promised directly addressable storage of type `Value` at this offset.
        let field = UnsafeMutableRawPointer(root).advanced(by: offset)
        return body(&field.assumingMemoryBound(to: Value.self).pointee)
      }
    case let .keyPath(keyPath):
      return body(&root[keyPath: keyPath])
    }
  }
}
