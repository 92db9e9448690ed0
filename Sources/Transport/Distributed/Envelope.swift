/// One message between two actor systems, laid out by hand: every call pays for it twice.
///
/// A call names its target by a number the caller's side gave it on this connection; the
/// first call to a target also carries the target's name, so a name (a mangled function
/// name, tens of bytes) crosses once per connection, not once per call.
enum Envelope: Sendable, Equatable {
  static let frameKind: UInt8 = 0x10

  /// Arguments are the call's arguments written one after another, each by its own
  /// `WireCodable` layout.
  case call(id: UInt64, actor: SocketActorID, target: UInt64, definition: String?, arguments: [UInt8])
  case reply(id: UInt64, value: [UInt8])
  /// The call threw, or this system refused it.
  case failure(id: UInt64, error: ThrownError)

  var frame: Frame {
    var writer = ByteWriter()
    switch self {
    case let .call(id, actor, target, definition, arguments):
      writer.write(definition == nil ? 3 : 0 as UInt64)
      writer.write(id)
      writer.write(actor.number)
      writer.write(target)
      if let definition { writer.write(definition) }
      writer.write(bytes: arguments)
    case let .reply(id, value):
      writer.write(1 as UInt64)
      writer.write(id)
      writer.write(bytes: value)
    case let .failure(id, error):
      // Tag 2 was a failure laid out as a bare message: a peer of an older build that sends
      // one is refused as malformed, not misread.
      writer.write(4 as UInt64)
      writer.write(id)
      error.write(to: &writer)
    }
    return Frame(kind: Self.frameKind, payload: writer.bytes)
  }

  /// The envelope in `frame`; throws on another kind of frame, or bytes that are not one.
  init(_ frame: Frame) throws(TransportError) {
    guard frame.kind == Self.frameKind else {
      throw .malformed("expected an actor system frame (kind \(Self.frameKind)), got kind \(frame.kind)")
    }
    var reader = ByteReader(frame.payload)
    switch try reader.readUInt64() {
    case let tag where tag == 0 || tag == 3:
      let id = try reader.readUInt64()
      let actor = SocketActorID(number: try reader.readUInt64())
      let target = try reader.readUInt64()
      let definition = tag == 0 ? try reader.readString() : nil
      self = .call(id: id, actor: actor, target: target, definition: definition, arguments: try reader.readBytes())
    case 1: self = .reply(id: try reader.readUInt64(), value: try reader.readBytes())
    case 4: self = .failure(id: try reader.readUInt64(), error: try ThrownError(from: &reader))
    case let tag: throw .malformed("unknown actor system message tag \(tag)")
    }
    guard reader.isAtEnd else { throw .malformed("bytes left over after an actor system message") }
  }
}
