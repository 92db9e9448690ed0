import Synchronization
internal import Transport

/// Comparing and rebuilding a struct by the fields its `Codable` conformance names.
enum FieldAccess {
  /// Types found to round-trip field by field (true) or not (false), checked once each.
  private static let verdicts = Mutex<[ObjectIdentifier: Bool]>([:])

  /// The changed fields' patches; nil when the values are not structs that rebuild from their
  /// fields. A field that cannot be compared (not `Equatable`) goes whole every time.
  static func changes(from old: any Encodable, to new: any Encodable, depth: Int) throws -> [String: StatePatch]? {
    guard isFieldwise(new), let before = FieldCapture.capture(old), let after = FieldCapture.capture(new) else {
      return nil
    }
    var changes: [String: StatePatch] = [:]
    for (key, value) in after {
      if value is FieldCapture.Nil {
        if !(before[key] is FieldCapture.Nil) { changes[key] = .removed }
        continue
      }
      guard let previous = before[key], !(previous is FieldCapture.Nil) else {
        changes[key] = .whole(try BinaryEncoder().encode(value))
        continue
      }
      changes[key] = try StatePatch.difference(between: previous, and: value, depth: depth + 1)
    }
    for key in before.keys where after[key] == nil { changes[key] = .removed }
    return changes
  }

  /// Whether the type of `sample` rebuilds exactly from its fields: checked once per type on
  /// a sample, by patching every field of it onto itself, and none.
  static func isFieldwise<Value: Encodable>(_ sample: Value) -> Bool {
    let key = ObjectIdentifier(Value.self)
    if let verdict = verdicts.withLock({ $0[key] }) { return verdict }
    var verdict = false
    if let decodable = Value.self as? any Decodable.Type, let fields = FieldCapture.capture(sample),
      let all = try? fields.mapValues(encoded)
    {
      verdict = rebuilds(decodable, sample: sample, old: fields, patched: all)
    }
    verdicts.withLock { $0[key] = verdict }
    return verdict
  }

  private static func encoded(_ value: any Encodable) throws -> StatePatch {
    value is FieldCapture.Nil ? .removed : .whole(try BinaryEncoder().encode(value))
  }

  private static func rebuilds<Decoded: Decodable, Value>(
    _: Decoded.Type, sample: Value, old: [String: any Encodable], patched: [String: StatePatch]
  ) -> Bool {
    guard let rebuilt = try? Decoded(from: PatchingDecoder(old: old, fields: patched)) as? Value,
      areEqual(rebuilt, sample) == true,
      let shared = try? Decoded(from: PatchingDecoder(old: old, fields: [:])) as? Value
    else { return false }
    return areEqual(shared, sample) == true
  }
}
