#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import Synchronization

/// What the Swift runtime knows about the layout of one enum type: how to read a value's case
/// tag, the exact payload type of each case, and how to copy a payload out without `Mirror`.
///
/// Case paths sit on the path of every action, so extraction reads the tag and payload through
/// the enum's value witness table (stable ABI since Swift 5) instead of reflecting on each call.
/// The per-case payload types are resolved once per enum type, and the layout is a pointer to
/// that immortal table: copying one costs no reference counting.
struct EnumLayout: @unchecked Sendable {
  // Safe to share: `table` is written once, before it is published, and never freed; its
  // witnesses point into immutable type metadata.

  /// The payload of one case: its exact static type, and whether it is stored out of line.
  struct Case: Sendable {
    let name: String
    let payloadType: ObjectIdentifier?
    let isIndirect: Bool
    /// True when no other case has this payload type, so a value of that type can only have
    /// been embedded by this case.
    var hasUniquePayloadType = true
  }

  struct Table {
    let witnesses: EnumWitnesses
    let cases: UnsafeBufferPointer<Case>
    let payloadCaseCount: Int
    let hasSharedPayloadTypes: Bool
    /// One case with a payload stored inline and nothing else: the enum is laid out exactly
    /// as its payload, with no tag to read or strip.
    let isTransparent: Bool
    /// For an enum of one byte with no references: each of the 256 byte values, read as
    /// `getEnumTag` and `destructiveProjectEnumData` read it, so that no witness is called.
    let byteCases: UnsafePointer<ByteCase>?
  }

  /// What the witnesses make of one byte value of a one-byte enum: its case tag, and the
  /// payload byte left once the tag is stripped (zero for a case without payload).
  struct ByteCase {
    let tag: UInt8
    let payload: UInt8
  }

  let table: UnsafePointer<Table>

  init(table: UnsafePointer<Table>) { self.table = table }

  /// Cases with payload bytes in declaration order, then the others, indexed by tag.
  var cases: UnsafeBufferPointer<Case> { table.pointee.cases }
  var payloadCaseCount: Int { table.pointee.payloadCaseCount }
  /// True when two cases have the same payload type, so a payload's type alone does not tell
  /// which case embedded it.
  var hasSharedPayloadTypes: Bool { table.pointee.hasSharedPayloadTypes }
  /// One case with a payload stored inline and nothing else: laid out exactly as its payload.
  var isTransparent: Bool { table.pointee.isTransparent }
  /// True when a value's case and payload are read from `Table.byteCases`.
  var isByteSized: Bool { table.pointee.byteCases != nil }

  /// The layout of `Root`, or nil when `Root` is not an enum.
  @inline(__always)
  static func of<Root>(_: Root.Type) -> EnumLayout? {
    let metadata = UInt(bitPattern: unsafeBitCast(Root.self as Any.Type, to: Int.self))
    return LayoutCache.layout(for: metadata) ?? LayoutCache.insert(reflecting: Root.self)
  }

  /// The case tag of `value`: payload cases in declaration order, then the empty cases.
  @inline(__always)
  func tag<Root>(of value: Root) -> UInt32 {
    if table.pointee.isTransparent { return 0 }
    let witnesses = table.pointee.witnesses
    return withUnsafePointer(to: value) {
      witnesses.getEnumTag(UnsafeRawPointer($0), witnesses.metadata)
    }
  }

  /// A case path's expected tag when it has not settled which case is its own.
  static let unsettledTag = UInt32.max

  /// The payload of `value` when its case is `expectedTag` (any case when `unsettledTag`) and
  /// that case's payload type is exactly `Value`; nil otherwise.
  ///
  /// A payload type that several cases share says nothing about which case `value` has, so
  /// without an expected tag `embed` settles it: the case is ours when re-embedding the
  /// payload lands on the same tag.
  @inline(__always)
  func payload<Root, Value>(
    of value: Root, expectedTag: UInt32, embed: (Value) -> Root
  ) -> Value? {
    let tag = tag(of: value)
    let isSettled = expectedTag != EnumLayout.unsettledTag
    if isSettled, tag != expectedTag { return nil }
    let found = cases[Int(tag)]
    guard found.payloadType == ObjectIdentifier(Value.self) else { return nil }
    let payload = payload(of: value, tag: tag, as: Value.self)
    guard !isSettled, !found.hasUniquePayloadType else { return payload }
    return self.tag(of: embed(payload)) == tag ? payload : nil
  }

  /// The tag of the one case whose payload type is exactly `Value`; nil when none or several.
  func onlyCase<Value>(carrying _: Value.Type) -> UInt32? {
    var found: UInt32?
    for index in cases.indices where cases[index].payloadType == ObjectIdentifier(Value.self) {
      guard found == nil else { return nil }
      found = UInt32(index)
    }
    return found
  }

  /// The tag of the case that `embed` builds, found by embedding a sample payload, when that
  /// case's payload type is exactly `Value`; nil when `Value` has no sample.
  func tag<Root, Value>(embeddedBy embed: (Value) -> Root) -> UInt32? {
    guard let sample = EnumLayout.of(Value.self)?.sample(Value.self) else { return nil }
    let tag = tag(of: embed(sample))
    return cases[Int(tag)].payloadType == ObjectIdentifier(Value.self) ? tag : nil
  }

  /// The payload of `value` when its case is `tag`, read from the table of byte values: the
  /// layout `isByteSized`, and case `tag`'s payload type is exactly `Value`.
  @inline(__always)
  func payload<Root, Value>(ofByteSized value: Root, tag: UInt32, as _: Value.Type) -> Value? {
    let byte = withUnsafeBytes(of: value) { $0[0] }
    let entry = table.pointee.byteCases.unsafelyUnwrapped[Int(byte)]
    guard UInt32(entry.tag) == tag else { return nil }
    // The payload of a one-byte enum without references is a byte or less without them.
    return withUnsafeBytes(of: entry.payload) { $0.load(as: Value.self) }
  }

  /// The payload of `value`, which must have case `tag` whose payload type is exactly `Value`.
  @inline(__always)
  func payload<Root, Value>(of value: Root, tag: UInt32, as _: Value.Type) -> Value {
    if table.pointee.isTransparent {
      return withUnsafePointer(to: value) { UnsafeRawPointer($0).load(as: Value.self) }
    }
    let witnesses = table.pointee.witnesses
    guard cases[Int(tag)].isIndirect else {
      // Projecting a copy leaves the payload in its place; moving it out consumes the copy.
      return withUnsafeTemporaryAllocation(of: Root.self, capacity: 1) { buffer in
        let base = buffer.baseAddress!
        base.initialize(to: value)
        witnesses.destructiveProjectEnumData(UnsafeMutableRawPointer(base), witnesses.metadata)
        return UnsafeMutableRawPointer(base).assumingMemoryBound(to: Value.self).move()
      }
    }
    var copy = value
    return withUnsafeMutableBytes(of: &copy) { bytes in
      let base = bytes.baseAddress!
      witnesses.destructiveProjectEnumData(base, witnesses.metadata)
      defer { witnesses.destructiveInjectEnumTag(base, tag, witnesses.metadata) }
      // An indirect payload lives in a heap box after its two-word object header.
      let box = base.load(as: UnsafeRawPointer.self)
      let alignmentMask = MemoryLayout<Value>.alignment - 1
      let offset = (2 * MemoryLayout<Int>.size + alignmentMask) & ~alignmentMask
      return box.advanced(by: offset).load(as: Value.self)
    }
  }

  /// A value of `Root` with its first case that has no payload bytes, if there is one: enough to
  /// tell apart the cases an embed function builds, without a real payload at hand.
  func sample<Root>(_: Root.Type) -> Root? {
    guard payloadCaseCount < cases.count else { return nil }
    let size = MemoryLayout<Root>.size
    let witnesses = table.pointee.witnesses
    return withUnsafeTemporaryAllocation(
      byteCount: max(size, 1), alignment: MemoryLayout<Root>.alignment
    ) { buffer in
      let base = buffer.baseAddress!
      base.initializeMemory(as: UInt8.self, repeating: 0, count: buffer.count)
      witnesses.destructiveInjectEnumTag(base, UInt32(payloadCaseCount), witnesses.metadata)
      // A case without payload bytes holds no references, so a bitwise copy is a valid value.
      return base.load(as: Root.self)
    }
  }
}

extension EnumLayout.Table {
  /// The table of `Root`, or nil when `Root` is not an enum.
  fileprivate init?<Root>(reflecting _: Root.Type) {
    let metadata = unsafeBitCast(Root.self as Any.Type, to: UnsafeRawPointer.self)
    let kind = metadata.load(as: Int.self)
    guard kind == MetadataKind.enum || kind == MetadataKind.optional,
      let witnesses = EnumWitnesses(metadata: metadata)
    else { return nil }
    let descriptor = metadata.load(fromByteOffset: MemoryLayout<Int>.size, as: UnsafeRawPointer.self)
    let isGeneric = descriptor.load(as: UInt32.self) & ContextDescriptorFlags.isGeneric != 0
    let genericArguments = isGeneric ? metadata.advanced(by: 2 * MemoryLayout<Int>.size) : nil
    let payloadCaseCount = Int(descriptor.load(fromByteOffset: 20, as: UInt32.self) & 0x00FF_FFFF)
    let fields = relativeTarget(descriptor.advanced(by: 16))
    let recordSize = Int(fields.load(fromByteOffset: 10, as: UInt16.self))
    let fieldCount = Int(fields.load(fromByteOffset: 12, as: UInt32.self))
    var payloadCases: [EnumLayout.Case] = []
    var emptyCases: [EnumLayout.Case] = []
    for index in 0..<fieldCount {
      let record = fields.advanced(by: 16 + index * recordSize)
      let flags = record.load(as: UInt32.self)
      let name = String(cString: relativeTarget(record.advanced(by: 8)).assumingMemoryBound(to: CChar.self))
      guard record.load(fromByteOffset: 4, as: Int32.self) != 0 else {
        emptyCases.append(EnumLayout.Case(name: name, payloadType: nil, isIndirect: false))
        continue
      }
      let typeName = relativeTarget(record.advanced(by: 4)).assumingMemoryBound(to: UInt8.self)
      let type = typeByMangledName(
        typeName, UInt(mangledNameLength(typeName)), descriptor, genericArguments)
      let isIndirect = flags & 0x1 != 0
      let payload = EnumLayout.Case(
        name: name,
        payloadType: type.map { ObjectIdentifier(unsafeBitCast($0, to: Any.Type.self)) },
        isIndirect: isIndirect)
      // The compiler lays out a case whose payload has no bytes as a case without payload,
      // unless the layout is left to the runtime, as for generic enums.
      if !isGeneric, !isIndirect, let type, byteSize(ofMetadata: type) == 0 {
        emptyCases.append(payload)
      } else {
        payloadCases.append(payload)
      }
    }
    guard payloadCases.count == payloadCaseCount else { return nil }
    var cases = payloadCases + emptyCases
    var seen: [ObjectIdentifier: Int] = [:]
    for index in cases.indices {
      guard let type = cases[index].payloadType else { continue }
      if let first = seen[type] {
        cases[first].hasUniquePayloadType = false
        cases[index].hasUniquePayloadType = false
      } else {
        seen[type] = index
      }
    }
    let storage = UnsafeMutableBufferPointer<EnumLayout.Case>.allocate(capacity: cases.count)
    _ = storage.initialize(from: cases)
    let isTransparent = cases.count == 1 && payloadCaseCount == 1 && !cases[0].isIndirect
    self.init(
      witnesses: witnesses, cases: UnsafeBufferPointer(storage),
      payloadCaseCount: payloadCaseCount,
      hasSharedPayloadTypes: cases.contains { !$0.hasUniquePayloadType },
      isTransparent: isTransparent,
      byteCases: isTransparent ? nil : Self.byteCases(of: metadata, witnesses, payloadCaseCount))
  }

  /// The table of `Table.byteCases` for an enum of one byte with no references, made by asking
  /// the witnesses about each byte value; nil for any other enum. Asking about a byte value
  /// that no case uses is harmless without references (the witnesses only read and clear
  /// bits), and its entry is never read: no value of the enum has that byte.
  private static func byteCases(
    of metadata: UnsafeRawPointer, _ witnesses: EnumWitnesses, _ payloadCaseCount: Int
  ) -> UnsafePointer<EnumLayout.ByteCase>? {
    let isNonPOD: UInt32 = 0x0001_0000
    guard byteSize(ofMetadata: metadata) == 1, valueWitnessFlags(ofMetadata: metadata) & isNonPOD == 0
    else { return nil }
    let table = UnsafeMutablePointer<EnumLayout.ByteCase>.allocate(capacity: 256)
    for value in 0...UInt8.max {
      var byte = value
      let tag = withUnsafeMutableBytes(of: &byte) { bytes -> UInt32 in
        let tag = witnesses.getEnumTag(UnsafeRawPointer(bytes.baseAddress!), metadata)
        if tag < payloadCaseCount { witnesses.destructiveProjectEnumData(bytes.baseAddress!, metadata) }
        return tag
      }
      // A one-byte enum has at most 256 cases, so a byte value that some value has fits.
      table[Int(value)] = EnumLayout.ByteCase(
        tag: UInt8(truncatingIfNeeded: tag), payload: tag < payloadCaseCount ? byte : 0)
    }
    return UnsafePointer(table)
  }
}

/// The layouts known so far, by type metadata address, readable without a lock or reference
/// counting: every case path in a `body` looks one up each time the body is evaluated, which
/// is once per action.
///
/// Readers load an immutable open-addressed table through an atomic address. A writer, under a
/// lock, publishes a new table with one more entry and never frees the old one, so a reader
/// can never hold a freed table. The leak is bounded: the tables grow by doubling, so all of
/// them together take at most twice the last one, a few words per enum type that ever crosses
/// a case path.
enum LayoutCache {
  struct Slot {
    var metadata: UInt = 0
    var layout: EnumLayout?
  }

  struct Snapshot {
    /// Capacity minus one; the capacity is a power of two.
    let mask: Int
    let count: Int
    let slots: UnsafeMutablePointer<Slot>

    /// The slot for `metadata`: its own, or the empty one where it would go.
    func index(of metadata: UInt) -> Int {
      // Metadata is at least 8-byte aligned; Fibonacci hashing spreads the remaining bits.
      var index = Int(truncatingIfNeeded: (metadata &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
      while slots[index].metadata != metadata, slots[index].metadata != 0 {
        index = (index &+ 1) & mask
      }
      return index
    }
  }

  /// The address of the current snapshot, or 0 before the first layout.
  static let current = Atomic<UInt>(0)
  private static let writer = Mutex(())

  @inline(__always)
  static func layout(for metadata: UInt) -> EnumLayout? {
    guard let snapshot = UnsafePointer<Snapshot>(bitPattern: current.load(ordering: .acquiring))
    else { return nil }
    return snapshot.pointee.slots[snapshot.pointee.index(of: metadata)].layout
  }

  @inline(never)
  static func insert<Root>(reflecting _: Root.Type) -> EnumLayout? {
    let metadata = UInt(bitPattern: unsafeBitCast(Root.self as Any.Type, to: Int.self))
    return writer.withLock { _ in
      let old = UnsafePointer<Snapshot>(bitPattern: current.load(ordering: .acquiring))
      if let old, let winner = old.pointee.slots[old.pointee.index(of: metadata)].layout {
        return winner
      }
      guard let table = EnumLayout.Table(reflecting: Root.self) else { return nil }
      let stored = UnsafeMutablePointer<EnumLayout.Table>.allocate(capacity: 1)
      stored.initialize(to: table)
      let layout = EnumLayout(table: stored)
      let count = (old?.pointee.count ?? 0) + 1
      let capacity = max(16, (old?.pointee.mask ?? 0) + 1)
      let grown = count * 2 > capacity ? capacity * 2 : capacity
      let slots = UnsafeMutablePointer<Slot>.allocate(capacity: grown)
      slots.initialize(repeating: Slot(), count: grown)
      let next = Snapshot(mask: grown - 1, count: count, slots: slots)
      if let old {
        for index in 0...old.pointee.mask where old.pointee.slots[index].metadata != 0 {
          let slot = old.pointee.slots[index]
          slots[next.index(of: slot.metadata)] = slot
        }
      }
      slots[next.index(of: metadata)] = Slot(metadata: metadata, layout: layout)
      let published = UnsafeMutablePointer<Snapshot>.allocate(capacity: 1)
      published.initialize(to: next)
      current.store(UInt(bitPattern: Int(bitPattern: published)), ordering: .releasing)
      return layout
    }
  }
}

/// The enum-specific entries of a value witness table, and the metadata they take.
struct EnumWitnesses: @unchecked Sendable {
  // Safe to share: every field points into immutable, never-freed type metadata and code.
  typealias GetEnumTag = @convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UInt32
  typealias ProjectEnumData = @convention(c) (UnsafeMutableRawPointer, UnsafeRawPointer) -> Void
  typealias InjectEnumTag = @convention(c) (UnsafeMutableRawPointer, UInt32, UnsafeRawPointer) -> Void

  let metadata: UnsafeRawPointer
  let getEnumTag: GetEnumTag
  let destructiveProjectEnumData: ProjectEnumData
  let destructiveInjectEnumTag: InjectEnumTag

  init?(metadata: UnsafeRawPointer) {
    let table = metadata.load(fromByteOffset: -MemoryLayout<Int>.size, as: UnsafeRawPointer.self)
    // Eight function pointers, size, stride, flags, extra inhabitants, then the enum witnesses.
    let word = MemoryLayout<Int>.size
    let flags = table.load(fromByteOffset: 10 * word, as: UInt32.self)
    guard flags & 0x0020_0000 != 0 else { return nil }  // HasEnumWitnesses
    self.metadata = metadata
    getEnumTag = table.load(fromByteOffset: 11 * word, as: GetEnumTag.self)
    destructiveProjectEnumData = table.load(fromByteOffset: 12 * word, as: ProjectEnumData.self)
    destructiveInjectEnumTag = table.load(fromByteOffset: 13 * word, as: InjectEnumTag.self)
  }
}

private enum MetadataKind {
  static let `enum` = 0x201
  static let optional = 0x202
}

private enum ContextDescriptorFlags {
  static let isGeneric: UInt32 = 0x80
}

/// The size in bytes of values of the type with `metadata`, from its value witness table.
private func byteSize(ofMetadata metadata: UnsafeRawPointer) -> Int {
  let table = metadata.load(fromByteOffset: -MemoryLayout<Int>.size, as: UnsafeRawPointer.self)
  return table.load(fromByteOffset: 8 * MemoryLayout<Int>.size, as: Int.self)
}

/// The flags of the value witness table of the type with `metadata` (`IsNonPOD`, …).
private func valueWitnessFlags(ofMetadata metadata: UnsafeRawPointer) -> UInt32 {
  let table = metadata.load(fromByteOffset: -MemoryLayout<Int>.size, as: UnsafeRawPointer.self)
  return table.load(fromByteOffset: 10 * MemoryLayout<Int>.size, as: UInt32.self)
}

/// Follows a 32-bit relative pointer stored at `field`.
private func relativeTarget(_ field: UnsafeRawPointer) -> UnsafeRawPointer {
  field.advanced(by: Int(field.load(as: Int32.self)))
}

/// The length of a mangled name that may embed symbolic references (as the standard library's
/// own key path code measures it).
private func mangledNameLength(_ start: UnsafePointer<UInt8>) -> Int {
  var length = 0
  while case let byte = start[length], byte != 0 {
    length += 1
    if (0x01...0x17).contains(byte) {
      length += 4
    } else if (0x18...0x1F).contains(byte) {
      length += MemoryLayout<Int>.size
    }
  }
  return length
}

/// The runtime's `swift_getTypeByMangledNameInContext`, which `Mirror` uses to resolve field
/// types. It is looked up at run time because Swift reserves its name for the runtime; its
/// arguments and result are pointers and an integer, passed the same way by the Swift and C
/// calling conventions.
private let typeByMangledName: TypeByMangledName = {
  guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_getTypeByMangledNameInContext") else {
    preconditionFailure("The Swift runtime has no swift_getTypeByMangledNameInContext.")
  }
  return unsafeBitCast(symbol, to: TypeByMangledName.self)
}()

private typealias TypeByMangledName = @convention(c) (
  UnsafePointer<UInt8>, UInt, UnsafeRawPointer?, UnsafeRawPointer?
) -> UnsafeRawPointer?
