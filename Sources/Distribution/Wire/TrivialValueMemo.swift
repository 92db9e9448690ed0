import Synchronization

/// The encodings of a trivial type's values, the values of those encodings, and the values'
/// names, remembered: a boundary sends a handful of distinct actions over and over, and each
/// trip through `Codable` or reflection costs microseconds where a lookup costs tens of
/// nanoseconds.
///
/// Only for types copied bit for bit (no references, `_isPOD`), whose bytes say all there is
/// of a value: equal bytes are the same value, so a remembered encoding is the one `Codable`
/// would make. Bytes that differ only in padding miss, which costs a trip, never a wrong
/// answer. Coding must depend on the value alone, as the wire requires anyway.
///
/// ```swift
/// let memo = TrivialValueMemo<Action>()
/// let bytes = try memo?.encode(.bump) { try BinaryEncoder().encode($0) }
/// ```
final class TrivialValueMemo<Value>: Sendable {
  /// Values this large, or types that are not trivial, are not worth remembering.
  static var isWorthwhile: Bool { _isPOD(Value.self) && MemoryLayout<Value>.size <= 64 }

  /// Each table forgets everything once it holds this many: an action carrying a counter
  /// would otherwise grow it for ever.
  private static var capacity: Int { 64 }

  /// A value's own bytes to its encoding, and an encoding to the value's bytes. Bytes rather
  /// than values, so that nothing but bytes crosses threads through the memo.
  private let encodings = Mutex<[[UInt8]: [UInt8]]>([:])
  private let values = Mutex<[[UInt8]: [UInt8]]>([:])
  /// A value's own bytes to its name, for an instrument that names actions.
  private let names = Mutex<[[UInt8]: String]>([:])

  /// Nil unless `isWorthwhile`.
  init?() {
    guard Self.isWorthwhile else { return nil }
  }

  func encode(_ value: Value, by encoder: (Value) throws -> [UInt8]) rethrows -> [UInt8] {
    try remembered(withUnsafeBytes(of: value) { Array($0) }, in: encodings) { try encoder(value) }
  }

  /// `value`'s name, made by `describe` the first time.
  func name(of value: Value, by describe: (Value) -> String) -> String {
    remembered(withUnsafeBytes(of: value) { Array($0) }, in: names) { describe(value) }
  }

  func decode(_ bytes: [UInt8], by decoder: ([UInt8]) throws -> Value) rethrows -> Value {
    if let known = values.withLock({ $0[bytes] }) { return Self.value(from: known) }
    let value = try decoder(bytes)
    remember(bytes, for: withUnsafeBytes(of: value) { Array($0) }, in: values)
    return value
  }

  /// What `table` holds for `key`, made by `make` and remembered if it holds nothing. Inlined,
  /// so that each caller's table has its concrete type: left generic, each call looked up the
  /// table's type metadata, which cost more than the lookup itself.
  @inline(__always)
  private func remembered<Remembered: Sendable>(
    _ key: [UInt8], in table: borrowing Mutex<[[UInt8]: Remembered]>, make: () throws -> Remembered
  ) rethrows -> Remembered {
    if let known = table.withLock({ $0[key] }) { return known }
    let made = try make()
    remember(key, for: made, in: table)
    return made
  }

  @inline(__always)
  private func remember<Remembered: Sendable>(
    _ key: [UInt8], for value: Remembered, in table: borrowing Mutex<[[UInt8]: Remembered]>
  ) {
    table.withLock { table in
      if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
      table[key] = value
    }
  }

  /// The value whose bytes these are; sound because the type is trivial.
  private static func value(from bytes: [UInt8]) -> Value {
    withUnsafeTemporaryAllocation(of: Value.self, capacity: 1) { slot in
      bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(slot).copyMemory(from: $0) }
      return slot.baseAddress!.move()
    }
  }
}
