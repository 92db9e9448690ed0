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
/// The per-case payload types are resolved once per enum type and cached.
final class EnumLayout: Sendable {
  /// The payload of one case: its exact static type, and whether it is stored out of line.
  struct Case: Sendable {
    let name: String
    let payloadType: ObjectIdentifier?
    let isIndirect: Bool
  }

  /// Cases with payload bytes in declaration order, then the others, indexed by tag.
  let cases: [Case]
  let payloadCaseCount: Int
  // Function pointers into the immortal, immutable metadata of the enum type.
  private let witnesses: EnumWitnesses

  private init(witnesses: EnumWitnesses, cases: [Case], payloadCaseCount: Int) {
    self.witnesses = witnesses
    self.cases = cases
    self.payloadCaseCount = payloadCaseCount
  }

  /// The layout of `Root`, or nil when `Root` is not an enum.
  static func of<Root>(_: Root.Type) -> EnumLayout? {
    let key = ObjectIdentifier(Root.self)
    if let cached = LayoutCache.shared.layout(for: key) { return cached }
    guard let layout = EnumLayout(reflecting: Root.self) else { return nil }
    return LayoutCache.shared.insert(layout, for: key)
  }

  /// The case tag of `value`: payload cases in declaration order, then the empty cases.
  @inline(__always)
  func tag<Root>(of value: Root) -> UInt32 {
    withUnsafePointer(to: value) { witnesses.getEnumTag(UnsafeRawPointer($0), witnesses.metadata) }
  }

  /// The payload of `value`, which must have case `tag` whose payload type is exactly `Value`.
  @inline(__always)
  func payload<Root, Value>(of value: Root, tag: UInt32, as _: Value.Type) -> Value {
    var copy = value
    return withUnsafeMutableBytes(of: &copy) { bytes in
      let base = bytes.baseAddress!
      witnesses.destructiveProjectEnumData(base, witnesses.metadata)
      defer { witnesses.destructiveInjectEnumTag(base, tag, witnesses.metadata) }
      guard cases[Int(tag)].isIndirect else { return base.load(as: Value.self) }
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

  private convenience init?<Root>(reflecting _: Root.Type) {
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
    var payloadCases: [Case] = []
    var emptyCases: [Case] = []
    for index in 0..<fieldCount {
      let record = fields.advanced(by: 16 + index * recordSize)
      let flags = record.load(as: UInt32.self)
      let name = String(cString: relativeTarget(record.advanced(by: 8)).assumingMemoryBound(to: CChar.self))
      guard record.load(fromByteOffset: 4, as: Int32.self) != 0 else {
        emptyCases.append(Case(name: name, payloadType: nil, isIndirect: false))
        continue
      }
      let typeName = relativeTarget(record.advanced(by: 4)).assumingMemoryBound(to: UInt8.self)
      let type = typeByMangledName(
        typeName, UInt(mangledNameLength(typeName)), descriptor, genericArguments)
      let isIndirect = flags & 0x1 != 0
      let payload = Case(
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
    self.init(
      witnesses: witnesses, cases: payloadCases + emptyCases, payloadCaseCount: payloadCases.count)
  }
}

/// The layouts known so far, readable without a lock: every operator in a `body` looks one up
/// each time the body is evaluated, which is once per action.
///
/// Readers load an immutable snapshot through an atomic pointer. A writer, under a lock,
/// publishes a new snapshot with one more entry and never frees the old one, so a reader can
/// never hold a freed snapshot. The leak is bounded: one small dictionary per enum type that
/// ever crosses a case path.
private final class LayoutCache: Sendable {
  static let shared = LayoutCache()

  private final class Snapshot: Sendable {
    let layouts: [ObjectIdentifier: EnumLayout]
    init(_ layouts: [ObjectIdentifier: EnumLayout]) { self.layouts = layouts }
  }

  /// The address of the current snapshot.
  private let current: Atomic<Int>
  private let writer = Mutex(())

  private init() {
    current = Atomic(Int(bitPattern: Unmanaged.passRetained(Snapshot([:])).toOpaque()))
  }

  private var snapshot: Snapshot {
    let address = UnsafeRawPointer(bitPattern: current.load(ordering: .acquiring))!
    return Unmanaged<Snapshot>.fromOpaque(address).takeUnretainedValue()
  }

  func layout(for key: ObjectIdentifier) -> EnumLayout? {
    snapshot.layouts[key]
  }

  func insert(_ layout: EnumLayout, for key: ObjectIdentifier) -> EnumLayout {
    writer.withLock { _ in
      var layouts = snapshot.layouts
      if let winner = layouts[key] { return winner }
      layouts[key] = layout
      let next = Unmanaged.passRetained(Snapshot(layouts)).toOpaque()
      current.store(Int(bitPattern: next), ordering: .releasing)
      return layout
    }
  }
}

/// The enum-specific entries of a value witness table, and the metadata they take.
private struct EnumWitnesses: @unchecked Sendable {
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
