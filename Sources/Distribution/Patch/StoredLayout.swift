@_spi(Reflection) import Swift
import Synchronization

/// A struct's stored properties as the runtime lays them out (name, offset, type), found once
/// per type, so that a patch compares, encodes and applies a state's fields in place instead of
/// through the fields its `Codable` conformance hands to a capturing encoder.
///
/// Only for a struct whose encoding is its stored properties under their own names, which is
/// what synthesized `Codable` makes: every field is `Codable`, every coding key names a stored
/// property of that property's type, and a property left out is optional (nil, left out as
/// `encodeIfPresent` leaves it). Then the patch this layout makes is the one the capturing
/// path makes, key for key, and either side of a boundary may apply it either way. Any other
/// struct (property wrappers, renamed keys, computed keys) goes through `FieldAccess`.
///
/// ```swift
/// if let layout = StoredLayout.of(State.self, sample: new) {
///   let changes = try layout.changes(from: old, to: new, depth: 0)   // [:] when equal
///   let patched = try layout.applying(changes, to: old)              // == new
/// }
/// ```
struct StoredLayout: Sendable {
  struct Field: Sendable {
    let name: String
    let offset: Int
    let coding: StoredFieldCoding
  }

  let fields: [Field]
  private let byName: [String: Field]

  /// Verdicts by type: a layout, or nil for a type that goes through `FieldAccess`.
  private static let verdicts = Mutex<[ObjectIdentifier: StoredLayout?]>([:])

  private init(fields: [Field]) {
    self.fields = fields
    byName = Dictionary(fields.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// The layout of `Value`, checked on `sample` the first time the type is asked about; nil
  /// when the type's encoding is not its stored properties.
  static func of<Value>(_: Value.Type, sample: Value) -> StoredLayout? {
    let key = ObjectIdentifier(Value.self)
    if let verdict = verdicts.withLock({ $0[key] }) { return verdict }
    let verdict = make(Value.self, sample: sample)
    verdicts.withLock { $0[key] = verdict }
    return verdict
  }

  /// The patch of the fields that changed from `old` to `new`; nil when none did.
  func difference<Value>(from old: Value, to new: Value, depth: Int) throws -> StatePatch? {
    let changes = try changes(from: old, to: new, depth: depth)
    return changes.isEmpty ? nil : .fields(changes)
  }

  /// The patches of the fields that changed from `old` to `new`, by name; empty when none did.
  func changes<Value>(from old: Value, to new: Value, depth: Int) throws -> [String: StatePatch] {
    var changes: [String: StatePatch] = [:]
    try withUnsafeBytes(of: old) { old in
      try withUnsafeBytes(of: new) { new in
        for field in fields {
          let patch = try field.coding.difference(
            old.baseAddress! + field.offset, new.baseAddress! + field.offset, depth + 1)
          if let patch { changes[field.name] = patch }
        }
      }
    }
    return changes
  }

  /// `old` with `changes` applied to its fields in place; `old` itself is left as it was.
  func applying<Value>(_ changes: [String: StatePatch], to old: Value) throws -> Value {
    var patched = old
    try withUnsafeMutableBytes(of: &patched) { patched in
      for (name, patch) in changes {
        guard let field = byName[name] else {
          throw DistributionError.protocolViolation("a patch changes \"\(name)\", which \(Value.self) does not have")
        }
        try field.coding.apply(patch, patched.baseAddress! + field.offset)
      }
    }
    return patched
  }

  private static func make<Value>(_: Value.Type, sample: Value) -> StoredLayout? {
    // A class's fields are shared, not copied with the value: it keeps its own coding.
    guard !(Value.self is AnyObject.Type), let encodable = sample as? any Encodable,
      let captured = FieldCapture.capture(encodable)
    else { return nil }
    var fields: [Field] = []
    var fits = true
    let enumerated = _forEachField(of: Value.self, options: []) { name, offset, type, _ in
      let name = String(cString: name)
      guard let coding = StoredFieldCoding.make(for: type, captured: captured[name]) else {
        fits = false
        return false
      }
      fields.append(Field(name: name, offset: offset, coding: coding))
      return true
    }
    // Every coding key must name a stored property, or a field would be lost on the way.
    let names = Set(fields.map(\.name))
    guard enumerated, fits, Set(captured.keys).isSubset(of: names) else { return nil }
    // An optional left out because it is nil says nothing of its key, which could be renamed:
    // then ask which keys decoding reads, so that the verdict does not depend on the sample.
    if captured.count < fields.count {
      guard let keysRead = LeastValueDecoder.keysRead(decoding: Value.self), keysRead.isSubset(of: names) else { return nil }
    }
    return StoredLayout(fields: fields)
  }
}
