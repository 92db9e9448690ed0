import Synchronization
internal import Transport

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
  /// the state encodes as one keyed container of `Equatable` fields and decodes back from them
  /// (synthesized `Codable` on a struct does); whole otherwise.
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
  public func applied<State: Codable>(to old: State?) throws -> State {
    switch self {
    case let .whole(bytes):
      return try BinaryDecoder().decode(State.self, from: bytes)
    case let .fields(fields):
      guard let old, let captured = FieldCapture.capture(old) else {
        throw DistributionError.protocolViolation("a field patch arrived for a state never sent whole")
      }
      return try State(from: PatchingDecoder(old: captured, fields: fields))
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

/// Comparing and rebuilding a struct by the fields its `Codable` conformance names.
enum FieldAccess {
  /// Types found to round-trip field by field (true) or not (false), checked once each.
  private static let verdicts = Mutex<[ObjectIdentifier: Bool]>([:])

  /// The changed fields' encodings, empty for a field that became nil; nil when some field
  /// cannot be compared.
  static func changes<State: Encodable>(from old: State, to new: State) throws -> [String: [UInt8]]? {
    guard let before = FieldCapture.capture(old), let after = FieldCapture.capture(new) else {
      return nil
    }
    var changes: [String: [UInt8]] = [:]
    for (key, value) in after {
      if let previous = before[key] {
        guard let same = areEqual(previous, value) else { return nil }
        if same { continue }
      }
      changes[key] = try encoded(value)
    }
    for key in before.keys where after[key] == nil { changes[key] = [] }
    return changes
  }

  /// Whether `State` rebuilds exactly from its fields: checked once per type on `sample`, by
  /// patching every field of it onto itself, and none.
  static func isFieldwise<State: Encodable>(_: State.Type, sample: State) -> Bool {
    let key = ObjectIdentifier(State.self)
    if let verdict = verdicts.withLock({ $0[key] }) { return verdict }
    var verdict = false
    if let decodable = State.self as? any Decodable.Type, let fields = FieldCapture.capture(sample),
      let all = try? fields.mapValues(encoded)
    {
      verdict = rebuilds(decodable, sample: sample, old: fields, patched: all)
    }
    verdicts.withLock { $0[key] = verdict }
    return verdict
  }

  private static func encoded(_ value: any Encodable) throws -> [UInt8] {
    value is FieldCapture.Nil ? [] : try BinaryEncoder().encode(value)
  }

  private static func rebuilds<Decoded: Decodable, State>(
    _: Decoded.Type, sample: State, old: [String: any Encodable], patched: [String: [UInt8]]
  ) -> Bool {
    guard let rebuilt = try? Decoded(from: PatchingDecoder(old: old, fields: patched)) as? State,
      areEqual(rebuilt, sample) == true,
      let shared = try? Decoded(from: PatchingDecoder(old: old, fields: [:])) as? State
    else { return false }
    return areEqual(shared, sample) == true
  }
}
