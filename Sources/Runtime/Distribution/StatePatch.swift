import Synchronization
import Transport

/// What a child state's copy on the other side of a boundary needs to catch up: the encoded
/// values of the fields that changed, or the whole state when it cannot be told field by field.
///
/// Both sides hold the state as a value, so a patch costs what changed, not what the state
/// holds: one field changed beside a megabyte of items is a patch of a few bytes, and unchanged
/// fields are shared with the old value, not decoded again.
///
/// ```swift
/// let patch = try StatePatch(from: old, to: new)      // nil when nothing changed
/// try patch?.applied(to: old) == new                  // true
/// ```
public enum StatePatch: Codable, Sendable, Equatable {
  /// Changed top-level fields, by coding key.
  case fields([String: [UInt8]])
  /// The whole state.
  case whole([UInt8])

  /// The patch that turns `old` into `new`, or nil when they are equal. Field by field when
  /// the state is an `Equatable` struct whose synthesized coding keys are its property names;
  /// whole otherwise.
  public init?<State: Encodable>(from old: State, to new: State) throws {
    if areEqual(old, new) == true { return nil }
    if FieldAccess.isFieldwise(State.self, sample: new), let fields = try FieldAccess.changes(from: old, to: new) {
      self = .fields(fields)
    } else {
      self = .whole(try BinaryEncoder().encode(new))
    }
  }

  /// The patch that carries all of `state`.
  public init<State: Encodable>(whole state: State) throws {
    self = .whole(try BinaryEncoder().encode(state))
  }

  /// `old` with this patch's changes.
  public func applied<State: Decodable>(to old: State?) throws -> State {
    switch self {
    case let .whole(bytes):
      return try BinaryDecoder().decode(State.self, from: bytes)
    case let .fields(fields):
      guard let old else {
        throw DistributionError.protocolViolation("a field patch arrived for a state never sent whole")
      }
      return try State(from: PatchingDecoder(base: old, fields: fields))
    }
  }

  /// The encoded bytes the patch carries.
  public var byteCount: Int {
    switch self {
    case let .fields(fields): fields.values.reduce(0) { $0 + $1.count }
    case let .whole(bytes): bytes.count
    }
  }
}

/// Reading and comparing a struct's fields through `Mirror`, which names them as their
/// synthesized coding keys do.
enum FieldAccess {
  /// Types found to round-trip field by field (true) or not (false), checked once each.
  private static let verdicts = Mutex<[ObjectIdentifier: Bool]>([:])

  static func fields(of value: Any) -> [(label: String, value: Any)]? {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .struct, mirror.superclassMirror == nil else { return nil }
    var fields: [(label: String, value: Any)] = []
    for child in mirror.children {
      guard let label = child.label else { return nil }
      fields.append((label, child.value))
    }
    return fields
  }

  /// The changed fields' encodings, or nil when some field cannot be compared or encoded.
  static func changes<State>(from old: State, to new: State) throws -> [String: [UInt8]]? {
    guard let before = fields(of: old), let after = fields(of: new), before.count == after.count else {
      return nil
    }
    var changes: [String: [UInt8]] = [:]
    for (old, new) in zip(before, after) {
      guard old.label == new.label, let same = areEqual(old.value, new.value) else { return nil }
      if same { continue }
      guard let encodable = new.value as? any Encodable else { return nil }
      changes[new.label] = try BinaryEncoder().encode(encodable)
    }
    return changes
  }

  /// Whether `State` rebuilds exactly from its fields: checked once per type on `sample`, by
  /// patching every field of it onto itself.
  static func isFieldwise<State: Encodable>(_: State.Type, sample: State) -> Bool {
    let key = ObjectIdentifier(State.self)
    if let verdict = verdicts.withLock({ $0[key] }) { return verdict }
    var verdict = false
    if let decodable = State.self as? any Decodable.Type, let fields = fields(of: sample),
      let all = try? encodedFields(fields)
    {
      verdict = rebuilds(decodable, sample: sample, fields: all)
    }
    verdicts.withLock { $0[key] = verdict }
    return verdict
  }

  private static func encodedFields(_ fields: [(label: String, value: Any)]) throws -> [String: [UInt8]] {
    try fields.reduce(into: [:]) { all, field in
      guard let encodable = field.value as? any Encodable else {
        throw DistributionError.protocolViolation("\(field.label) is not Encodable")
      }
      all[field.label] = try BinaryEncoder().encode(encodable)
    }
  }

  private static func rebuilds<Decoded: Decodable, State>(
    _: Decoded.Type, sample: State, fields: [String: [UInt8]]
  ) -> Bool {
    guard let rebuilt = try? Decoded(from: PatchingDecoder(base: sample, fields: fields)) as? State,
      areEqual(rebuilt, sample) == true,
      let shared = try? Decoded(from: PatchingDecoder(base: sample, fields: [:])) as? State
    else { return false }
    return areEqual(shared, sample) == true
  }
}
