/// One message between two actor systems, laid out by hand: every call pays for it twice.
enum Envelope: Sendable, Equatable {
  static let frameKind: UInt8 = 0x10

  case call(id: UInt64, actor: SocketActorID, target: String, arguments: [[UInt8]])
  case reply(id: UInt64, value: [UInt8])
  case failure(id: UInt64, message: String)

  var frame: Frame {
    var writer = ByteWriter()
    switch self {
    case let .call(id, actor, target, arguments):
      writer.write(0 as UInt64)
      writer.write(id)
      writer.write(actor.number)
      writer.write(target)
      writer.write(UInt64(arguments.count))
      for argument in arguments { writer.write(bytes: argument) }
    case let .reply(id, value):
      writer.write(1 as UInt64)
      writer.write(id)
      writer.write(bytes: value)
    case let .failure(id, message):
      writer.write(2 as UInt64)
      writer.write(id)
      writer.write(message)
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
    case 0:
      let id = try reader.readUInt64()
      let actor = SocketActorID(number: try reader.readUInt64())
      let target = try reader.readString()
      var arguments: [[UInt8]] = []
      for _ in 0..<(try reader.readCount()) { arguments.append(try reader.readBytes()) }
      self = .call(id: id, actor: actor, target: target, arguments: arguments)
    case 1: self = .reply(id: try reader.readUInt64(), value: try reader.readBytes())
    case 2: self = .failure(id: try reader.readUInt64(), message: try reader.readString())
    case let tag: throw .malformed("unknown actor system message tag \(tag)")
    }
    guard reader.isAtEnd else { throw .malformed("bytes left over after an actor system message") }
  }
}
