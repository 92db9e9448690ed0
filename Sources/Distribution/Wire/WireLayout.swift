internal import Transport

// The byte layout of the wire messages: a varint tag for each enum case, then its fields in
// order. Optionals are a flag then the value; lists are a count then the items. Readers check
// every length and tag, and nest effects no deeper than `PortableEffect.maximumDepth`.

extension Wire.Request: WireCodable {
  func write(to writer: inout ByteWriter) {
    switch self {
    case let .run(slot, baseVersion, patch, action, dependencies, holdReply):
      writer.write(tag: 0)
      writer.write(bytes: slot)
      writer.write(baseVersion)
      writer.write(optional: patch)
      writer.write(bytes: action)
      writer.write(optional: dependencies)
      writer.write(holdReply)
    case let .drop(slot):
      writer.write(tag: 1)
      writer.write(bytes: slot)
    case .ping:
      writer.write(tag: 2)
    case let .assign(boundary, brief):
      writer.write(tag: 3)
      writer.write(boundary)
      writer.write(brief)
    }
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    switch try reader.readUInt64() {
    case 0:
      self = .run(
        slot: try reader.readBytes(), baseVersion: try reader.readUInt64(),
        patch: try reader.readOptional(StatePatch.self), action: try reader.readBytes(),
        dependencies: try reader.readOptional(Wire.DependencyHeader.self), holdReply: try reader.readUInt64())
    case 1: self = .drop(slot: try reader.readBytes())
    case 2: self = .ping
    case 3: self = .assign(boundary: try reader.readString(), brief: try reader.readString())
    case let tag: throw .malformed("unknown request tag \(tag)")
    }
  }
}

extension Wire.Reply: WireCodable {
  func write(to writer: inout ByteWriter) {
    switch self {
    case let .ran(outcome):
      writer.write(tag: 0)
      outcome.write(to: &writer)
    case let .stale(version):
      writer.write(tag: 1)
      writer.write(version)
    case .dropped:
      writer.write(tag: 2)
    case let .failed(reason):
      writer.write(tag: 3)
      writer.write(reason)
    case .pong:
      writer.write(tag: 4)
    case let .assigned(hello):
      writer.write(tag: 5)
      hello.write(to: &writer)
    }
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    switch try reader.readUInt64() {
    case 0:
      self = .ran(try Wire.Outcome(from: &reader))
    case 1: self = .stale(version: try reader.readUInt64())
    case 2: self = .dropped
    case 3: self = .failed(try reader.readString())
    case 4: self = .pong
    case 5: self = .assigned(try Wire.Hello(from: &reader))
    case let tag: throw .malformed("unknown reply tag \(tag)")
    }
  }
}

// The two directions of the effects connection share one tag space, so that a message of
// the wrong direction is told apart from damage.

extension Wire.HostMessage: WireCodable {
  /// The tags of the host's messages.
  static let tags: Set<UInt64> = [0, 1, 2, 6, 8, 9, 12, 16, 17]

  func write(to writer: inout ByteWriter) {
    switch self {
    case let .start(run): writer.write(tag: 0, run)
    case let .cancel(run): writer.write(tag: 1, run)
    case let .processed(sequence, tookOutcome):
      writer.write(tag: 2, sequence)
      writer.write(tookOutcome)
    case let .woke(token): writer.write(tag: 6, token)
    case .reportSettling: writer.write(tag: 8)
    case let .ping(token): writer.write(tag: 9, token)
    case let .answer(token, answer):
      writer.write(tag: 12, token)
      answer.write(to: &writer)
    case let .callElement(token, bytes):
      writer.write(tag: 16, token)
      writer.write(bytes: bytes)
    case let .callEnded(token, end):
      writer.write(tag: 17, token)
      end.write(to: &writer)
    }
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    switch try reader.readUInt64() {
    case 0: self = .start(run: try reader.readUInt64())
    case 1: self = .cancel(run: try reader.readUInt64())
    case 2: self = .processed(sequence: try reader.readUInt64(), tookOutcome: try reader.readBool())
    case 6: self = .woke(token: try reader.readUInt64())
    case 8: self = .reportSettling
    case 9: self = .ping(token: try reader.readUInt64())
    case 12: self = .answer(token: try reader.readUInt64(), try Wire.DependencyAnswer(from: &reader))
    case 16: self = .callElement(token: try reader.readUInt64(), try reader.readBytes())
    case 17: self = .callEnded(token: try reader.readUInt64(), try Wire.CallEnd(from: &reader))
    case let tag where Wire.WorkerMessage.tags.contains(tag):
      throw .malformed("effect message tag \(tag) is one only a worker sends, read where the host's are expected")
    case let tag: throw .malformed("unknown effect message tag \(tag)")
    }
  }
}

extension Wire.WorkerMessage: WireCodable {
  /// The tags of the worker's messages.
  static let tags: Set<UInt64> = [3, 4, 5, 7, 10, 11, 13, 14, 15, 18]

  func write(to writer: inout ByteWriter) {
    switch self {
    case let .action(run, sequence, bytes, outcome):
      writer.write(tag: 3, run, sequence)
      writer.write(bytes: bytes)
      writer.write(optional: outcome)
    case let .finished(run, lastAction): writer.write(tag: 4, run, lastAction)
    case let .sleep(run, token, nanoseconds): writer.write(tag: 5, run, token, nanoseconds)
    case let .settled(count): writer.write(tag: 7, count)
    case let .pong(token): writer.write(tag: 10, token)
    case let .question(token, revision, key, bytes):
      writer.write(tag: 11, token, revision)
      writer.write(key)
      writer.write(bytes: bytes)
    case let .warning(run, message):
      writer.write(tag: 13, run)
      writer.write(message)
    case let .dismiss(run): writer.write(tag: 14, run)
    case let .call(call):
      writer.write(tag: 15, call.token, call.run, call.revision)
      writer.write(call.key)
      writer.write(bytes: call.question)
      writer.write(call.streams)
    case let .cancelCall(token): writer.write(tag: 18, token)
    }
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    switch try reader.readUInt64() {
    case 3:
      self = .action(
        run: try reader.readUInt64(), sequence: try reader.readUInt64(), bytes: try reader.readBytes(),
        outcome: try reader.readOptional(Wire.Outcome.self))
    case 4: self = .finished(run: try reader.readUInt64(), lastAction: try reader.readUInt64())
    case 5:
      self = .sleep(run: try reader.readUInt64(), token: try reader.readUInt64(), nanoseconds: try reader.readUInt64())
    case 7: self = .settled(count: try reader.readUInt64())
    case 10: self = .pong(token: try reader.readUInt64())
    case 11:
      self = .question(
        token: try reader.readUInt64(), revision: try reader.readUInt64(), key: try reader.readString(),
        bytes: try reader.readBytes())
    case 13: self = .warning(run: try reader.readUInt64(), message: try reader.readString())
    case 14: self = .dismiss(run: try reader.readUInt64())
    case 15:
      self = .call(
        Wire.Call(
          token: try reader.readUInt64(), run: try reader.readUInt64(), revision: try reader.readUInt64(),
          key: try reader.readString(), question: try reader.readBytes(), streams: try reader.readBool()))
    case 18: self = .cancelCall(token: try reader.readUInt64())
    case let tag where Wire.HostMessage.tags.contains(tag):
      throw .malformed("effect message tag \(tag) is one only the host sends, read where a worker's are expected")
    case let tag: throw .malformed("unknown effect message tag \(tag)")
    }
  }
}

extension Wire.Hello: WireCodable {
  func write(to writer: inout ByteWriter) {
    writer.write(Wire.layoutVersion)
    switch self {
    case let .serving(greeting):
      writer.write(tag: 0)
      greeting.write(to: &writer)
    case let .refusing(refusal):
      writer.write(tag: 1)
      refusal.write(to: &writer)
    case .warm:
      writer.write(tag: 2)
    }
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    let layout = try reader.readUInt64()
    // The rest is laid out as the worker's version has it: none of it is read.
    guard layout == Wire.layoutVersion else {
      throw .malformed("the worker speaks wire layout \(layout); this host speaks \(Wire.layoutVersion)")
    }
    switch try reader.readUInt64() {
    case 0: self = .serving(try Wire.Greeting(from: &reader))
    case 1: self = .refusing(try Wire.Refusal(from: &reader))
    case 2: self = .warm
    case let tag: throw .malformed("unknown greeting tag \(tag)")
    }
  }
}

extension Wire.Greeting: WireField {
  func write(to writer: inout ByteWriter) {
    writer.write(boundary)
    writer.write(state)
    writer.write(action)
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    self.init(boundary: try reader.readString(), state: try reader.readString(), action: try reader.readString())
  }
}

extension Wire.Refusal: WireField {
  func write(to writer: inout ByteWriter) {
    switch self {
    case let .unknownApp(app, apps):
      writer.write(tag: 0)
      writer.write(app)
      writer.write(list: apps)
    case let .unknownBoundary(path, app, boundaries, apps):
      writer.write(tag: 1)
      writer.write(path)
      writer.write(optional: app)
      writer.write(list: boundaries)
      writer.write(list: apps)
    case let .cannotServe(path, reason):
      writer.write(tag: 2)
      writer.write(path)
      writer.write(reason)
    }
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    switch try reader.readUInt64() {
    case 0: self = .unknownApp(try reader.readString(), apps: try reader.readList(String.self))
    case 1:
      self = .unknownBoundary(
        try reader.readString(), app: try reader.readOptional(String.self),
        boundaries: try reader.readList(String.self), apps: try reader.readList(String.self))
    case 2: self = .cannotServe(try reader.readString(), reason: try reader.readString())
    case let tag: throw .malformed("unknown refusal tag \(tag)")
    }
  }
}

extension Wire.Answer: WireCodable {
  func write(to writer: inout ByteWriter) {
    writer.write(list: warnings)
    reply.write(to: &writer)
    writer.write(handlingNanoseconds)
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    warnings = try reader.readList(String.self)
    reply = try Wire.Reply(from: &reader)
    handlingNanoseconds = try reader.readUInt64()
  }
}

extension Wire.DependencyHeader: WireField {
  func write(to writer: inout ByteWriter) {
    writer.write(revision)
    writer.write(context == .test)
    writer.write(list: answeredByHost)
    writer.write(list: stayingOnHost)
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    revision = try reader.readUInt64()
    context = try reader.readBool() ? .test : .live
    answeredByHost = try reader.readList(String.self)
    stayingOnHost = try reader.readList(String.self)
  }
}

extension Wire.DependencyAnswer: WireCodable {
  func write(to writer: inout ByteWriter) {
    switch self {
    case let .answered(bytes, warnings):
      writer.write(tag: 0)
      writer.write(bytes: bytes)
      writer.write(list: warnings)
    case let .refused(reason):
      writer.write(tag: 1)
      writer.write(reason)
    }
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    switch try reader.readUInt64() {
    case 0: self = .answered(try reader.readBytes(), warnings: try reader.readList(String.self))
    case 1: self = .refused(try reader.readString())
    case let tag: throw .malformed("unknown dependency answer tag \(tag)")
    }
  }
}

extension Wire.CallEnd: WireField {
  func write(to writer: inout ByteWriter) {
    switch self {
    case let .answered(bytes, warnings):
      writer.write(tag: 0)
      writer.write(bytes: bytes)
      writer.write(list: warnings)
    case let .finished(warnings):
      writer.write(tag: 1)
      writer.write(list: warnings)
    case let .threw(thrown, warnings):
      writer.write(tag: 2)
      writer.write(thrown.type)
      writer.write(thrown.description)
      writer.write(thrown.value != nil)
      if let value = thrown.value {
        writer.write(value.typeName)
        writer.write(bytes: value.bytes)
      }
      writer.write(list: warnings)
    case let .refused(reason):
      writer.write(tag: 3)
      writer.write(reason)
    }
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    switch try reader.readUInt64() {
    case 0: self = .answered(try reader.readBytes(), warnings: try reader.readList(String.self))
    case 1: self = .finished(warnings: try reader.readList(String.self))
    case 2:
      let type = try reader.readString()
      let description = try reader.readString()
      let value = try reader.readBool() ? (typeName: try reader.readString(), bytes: try reader.readBytes()) : nil
      self = .threw(
        Wire.Thrown(type: type, description: description, value: value), warnings: try reader.readList(String.self))
    case 3: self = .refused(try reader.readString())
    case let tag: throw .malformed("unknown call end tag \(tag)")
    }
  }
}

extension Wire.Outcome: WireField {
  func write(to writer: inout ByteWriter) {
    writer.write(baseVersion)
    writer.write(version)
    writer.write(optional: patch)
    effect.write(to: &writer)
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    baseVersion = try reader.readUInt64()
    version = try reader.readUInt64()
    patch = try reader.readOptional(StatePatch.self)
    effect = try PortableEffect(from: &reader)
  }
}

/// A part of a wire message.
protocol WireField {
  func write(to writer: inout ByteWriter)
  init(from reader: inout ByteReader) throws(TransportError)
}

extension StatePatch: WireField {
  /// The bytes the patch takes on the wire, its bookkeeping included.
  package var wireByteCount: Int {
    var writer = ByteWriter()
    write(to: &writer)
    return writer.bytes.count
  }

  func write(to writer: inout ByteWriter) {
    switch self {
    case let .fields(fields):
      writer.write(tag: 0)
      writer.write(UInt64(fields.count))
      // Sorted, so that equal patches are equal bytes.
      for (key, patch) in fields.sorted(by: { $0.key < $1.key }) {
        writer.write(key)
        patch.write(to: &writer)
      }
    case let .whole(bytes):
      writer.write(tag: 1)
      writer.write(bytes: bytes)
    case .removed:
      writer.write(tag: 2)
    case let .splice(offset, removing, inserting):
      writer.write(tag: 3)
      writer.write(UInt64(offset))
      writer.write(UInt64(removing))
      writer.write(UInt64(inserting.count))
      for element in inserting { writer.write(bytes: element) }
    }
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    try self.init(from: &reader, depth: 0)
  }

  private init(from reader: inout ByteReader, depth: Int) throws(TransportError) {
    guard depth <= Self.maximumDepth else { throw .malformed("a state patch nests deeper than \(Self.maximumDepth)") }
    switch try reader.readUInt64() {
    case 0:
      var fields: [String: StatePatch] = [:]
      for _ in 0..<(try reader.readCount()) {
        let key = try reader.readString()
        guard fields[key] == nil else { throw .malformed("a state patch names the field \"\(key)\" twice") }
        fields[key] = try StatePatch(from: &reader, depth: depth + 1)
      }
      self = .fields(fields)
    case 1: self = .whole(try reader.readBytes())
    case 2: self = .removed
    case 3:
      let offset = try reader.readUInt64()
      let removing = try reader.readUInt64()
      guard offset <= UInt64(Int.max), removing <= UInt64(Int.max) else {
        throw .malformed("an element patch's range does not fit in memory")
      }
      var inserting: [[UInt8]] = []
      for _ in 0..<(try reader.readCount()) { inserting.append(try reader.readBytes()) }
      self = .splice(offset: Int(offset), removing: Int(removing), inserting: inserting)
    case let tag: throw .malformed("unknown state patch tag \(tag)")
    }
  }
}

extension PortableEffect: WireField {
  /// How deeply effects may nest in a message: far beyond what features build, and shallow
  /// enough that a hostile message cannot exhaust the stack.
  static let maximumDepth = 64

  func write(to writer: inout ByteWriter) {
    switch self {
    case .none:
      writer.write(tag: 0)
    case let .send(bytes):
      writer.write(tag: 1)
      writer.write(bytes: bytes)
    case let .run(number):
      writer.write(tag: 2)
      writer.write(number)
    case let .merge(effects):
      writer.write(tag: 3)
      writer.write(list: effects)
    case let .concatenate(effects):
      writer.write(tag: 4)
      writer.write(list: effects)
    case let .cancellable(key, cancelInFlight, effect):
      writer.write(tag: 5)
      key.write(to: &writer)
      writer.write(cancelInFlight)
      effect.write(to: &writer)
    case let .cancel(key):
      writer.write(tag: 6)
      key.write(to: &writer)
    }
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    try self.init(from: &reader, depth: 0)
  }

  private init(from reader: inout ByteReader, depth: Int) throws(TransportError) {
    guard depth < Self.maximumDepth else {
      throw .malformed("effects nest deeper than \(Self.maximumDepth)")
    }
    switch try reader.readUInt64() {
    case 0: self = .none
    case 1: self = .send(try reader.readBytes())
    case 2: self = .run(try reader.readUInt64())
    case 3: self = .merge(try Self.readList(from: &reader, depth: depth + 1))
    case 4: self = .concatenate(try Self.readList(from: &reader, depth: depth + 1))
    case 5:
      self = .cancellable(
        try PortableCancelKey(from: &reader), cancelInFlight: try reader.readBool(),
        try PortableEffect(from: &reader, depth: depth + 1))
    case 6: self = .cancel(try PortableCancelKey(from: &reader))
    case let tag: throw .malformed("unknown effect tag \(tag)")
    }
  }

  private static func readList(
    from reader: inout ByteReader, depth: Int
  ) throws(TransportError) -> [PortableEffect] {
    var effects: [PortableEffect] = []
    for _ in 0..<(try reader.readCount()) {
      effects.append(try PortableEffect(from: &reader, depth: depth))
    }
    return effects
  }
}

extension PortableCancelKey: WireField {
  func write(to writer: inout ByteWriter) {
    writer.write(optional: id)
    writer.write(UInt64(path.count))
    for element in path { writer.write(element) }
  }

  init(from reader: inout ByteReader) throws(TransportError) {
    id = try reader.readOptional(String.self)
    path = []
    for _ in 0..<(try reader.readCount()) { path.append(try reader.readString()) }
  }
}

extension String: WireField {
  func write(to writer: inout ByteWriter) { writer.write(self) }
  init(from reader: inout ByteReader) throws(TransportError) { self = try reader.readString() }
}

extension ByteWriter {
  /// A case's tag, then its numbers.
  mutating func write(tag: UInt64, _ numbers: UInt64...) {
    write(tag)
    for number in numbers { write(number) }
  }

  mutating func write<Field: WireField>(optional field: Field?) {
    write(field != nil)
    field?.write(to: &self)
  }

  mutating func write<Field: WireField>(list fields: [Field]) {
    write(UInt64(fields.count))
    for field in fields { field.write(to: &self) }
  }
}

extension ByteReader {
  mutating func readOptional<Field: WireField>(_: Field.Type) throws(TransportError) -> Field? {
    try readBool() ? try Field(from: &self) : nil
  }

  mutating func readList<Field: WireField>(_: Field.Type) throws(TransportError) -> [Field] {
    var fields: [Field] = []
    for _ in 0..<(try readCount()) { fields.append(try Field(from: &self)) }
    return fields
  }
}
