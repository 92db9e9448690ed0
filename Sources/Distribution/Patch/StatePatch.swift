import Bulkhead
internal import Transport

/// What a child state's copy on the other side of a boundary needs to catch up: the changes
/// from an old value to a new one, as small as the change.
///
/// A struct that encodes as one keyed container goes field by field, and a field that is
/// itself such a struct goes by its own fields, down to the leaf that changed. An `Array` or
/// `IdentifiedArray` of `Equatable` elements goes as a splice: the run of elements that
/// changed, replaced by the new run. Anything else goes whole. Unchanged parts are shared with
/// the old value, not decoded again: one element changed in a hundred thousand is a patch of
/// a few bytes plus that element.
///
/// Not `indirect`: the cases that nest hold their patches in a dictionary, already on the
/// heap, so a patch needs no box of its own (two allocations fewer on each side per action).
///
/// ```swift
/// let patch = try StatePatch(from: old, to: new)      // nil when nothing changed
/// try patch?.applied(to: old) == new                  // true
/// ```
package enum StatePatch: Codable, Sendable, Equatable {
  /// The whole value's encoding.
  case whole([UInt8])
  /// The fields that changed, by coding key, each with its own patch.
  case fields([String: StatePatch])
  /// A field that became nil.
  case removed
  /// The elements `offset..<(offset + removing)` replaced by the encoded elements `inserting`.
  case splice(offset: Int, removing: Int, inserting: [[UInt8]])

  /// The patch that turns `old` into `new`, or nil when they are equal.
  package init?<State: Encodable>(from old: State, to new: State) throws {
    guard let patch = try Self.difference(from: old, to: new) else { return nil }
    self = patch
  }

  /// The patch that carries all of `state`.
  package init<State: Encodable>(whole state: State) throws {
    self = .whole(try BinaryEncoder().encode(state))
  }

  /// `old` with this patch's changes.
  package func applied<State: Codable>(to old: State?) throws -> State {
    switch self {
    case let .whole(bytes):
      return try BinaryDecoder().decode(State.self, from: bytes)
    case .removed:
      throw DistributionError.protocolViolation("a patch removed a whole state")
    case .fields, .splice:
      guard let old else {
        throw DistributionError.protocolViolation("a patch of changes arrived for a state never sent whole")
      }
      return try Self.apply(self, to: old)
    }
  }

  /// The encoded bytes the patch carries, leaving out its own bookkeeping.
  package var byteCount: Int {
    switch self {
    case let .whole(bytes): bytes.count
    case let .fields(fields): fields.values.reduce(0) { $0 + $1.byteCount }
    case .removed: 0
    case let .splice(_, _, inserting): inserting.reduce(0) { $0 + $1.count }
    }
  }

  /// How deeply patches nest: far beyond the structs features build, and shallow enough that
  /// neither a deep value nor a hostile message exhausts the stack.
  static let maximumDepth = 32

  /// The smallest patch this type knows from `old` to `new`; nil when they are equal. A struct
  /// whose encoding is its stored properties goes by its layout (`StoredLayout`), where
  /// comparing the fields says whether anything changed.
  static func difference<Value: Encodable>(from old: Value, to new: Value, depth: Int = 0) throws -> StatePatch? {
    if depth < maximumDepth, let layout = StoredLayout.of(Value.self, sample: new) {
      return try layout.difference(from: old, to: new, depth: depth)
    }
    if areEqual(old, new) == true { return nil }
    return try changes(from: old, to: new, depth: depth)
  }

  /// `difference(from:to:depth:)` of two values of one type that the caller holds as
  /// existentials; a change of type goes whole.
  static func difference(between old: any Encodable, and new: any Encodable, depth: Int) throws -> StatePatch? {
    func opened<Value: Encodable>(_ new: Value) throws -> StatePatch? {
      guard let old = old as? Value else { return .whole(try BinaryEncoder().encode(new)) }
      return try difference(from: old, to: new, depth: depth)
    }
    return try opened(new)
  }

  /// The patch from `old` to `new`, already known to differ.
  static func changes<Value: Encodable>(from old: Value, to new: Value, depth: Int) throws -> StatePatch {
    if depth < maximumDepth, !BinaryEncoder.isPrimitive(Value.self) {
      if let splice = try ElementwisePatching.splice(from: old, to: new) { return splice }
      if let layout = StoredLayout.of(Value.self, sample: new) {
        return .fields(try layout.changes(from: old, to: new, depth: depth))
      }
      if let fields = try FieldAccess.changes(from: old, to: new, depth: depth) { return .fields(fields) }
    }
    return .whole(try BinaryEncoder().encode(new))
  }

  /// `old` with `patch` applied; fields by the value's layout when it has one.
  static func apply<Value: Decodable>(_ patch: StatePatch, to old: Value) throws -> Value {
    if case let .fields(fields) = patch, let layout = StoredLayout.of(Value.self, sample: old) {
      return try layout.applying(fields, to: old)
    }
    return try applyWithoutLayout(patch, to: old, as: Value.self)
  }

  /// `old` with `patch` applied, as a `Value`, for a caller that holds `old` as an existential.
  static func apply<Value: Decodable>(_ patch: StatePatch, to old: Any, as _: Value.Type) throws -> Value {
    if let old = old as? Value { return try apply(patch, to: old) }
    return try applyWithoutLayout(patch, to: old, as: Value.self)
  }

  /// `old` with `patch` applied through the value's `Codable` fields.
  private static func applyWithoutLayout<Value: Decodable>(
    _ patch: StatePatch, to old: Any, as _: Value.Type
  ) throws -> Value {
    switch patch {
    case let .whole(bytes):
      return try BinaryDecoder().decode(Value.self, from: bytes)
    case .removed:
      throw DistributionError.protocolViolation("a patch removed a value that cannot be nil")
    case let .splice(offset, removing, inserting):
      return try ElementwisePatching.apply(offset: offset, removing: removing, inserting: inserting, to: old, as: Value.self)
    case let .fields(fields):
      guard let encodable = old as? any Encodable, let captured = FieldCapture.capture(encodable) else {
        throw DistributionError.protocolViolation("a field patch arrived for a value without fields")
      }
      return try Value(from: PatchingDecoder(old: captured, fields: fields))
    }
  }
}
