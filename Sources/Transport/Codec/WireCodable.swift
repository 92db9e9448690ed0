/// A value that lays out its own bytes with `ByteWriter` and reads them back with
/// `ByteReader`: what the arguments and results of a `SocketActorSystem` call must be, so that
/// a call pays for a few varints, not for `Codable`'s containers.
///
/// ```swift
/// struct Point: WireCodable {
///   var x: Int, y: Int
///   init(from reader: inout ByteReader) throws(TransportError) {
///     x = try reader.readInt()
///     y = try reader.readInt()
///   }
///   func write(to writer: inout ByteWriter) {
///     writer.write(x)
///     writer.write(y)
///   }
/// }
/// ```
public protocol WireCodable: Sendable {
  /// Reads a value that `write(to:)` wrote; throws on bytes that are not one.
  init(from reader: inout ByteReader) throws(TransportError)
  /// Appends the value's bytes.
  func write(to writer: inout ByteWriter)
}

extension Int: WireCodable {
  public init(from reader: inout ByteReader) throws(TransportError) { self = try reader.readInt() }
  public func write(to writer: inout ByteWriter) { writer.write(self) }
}

extension UInt64: WireCodable {
  public init(from reader: inout ByteReader) throws(TransportError) { self = try reader.readUInt64() }
  public func write(to writer: inout ByteWriter) { writer.write(self) }
}

extension Bool: WireCodable {
  public init(from reader: inout ByteReader) throws(TransportError) { self = try reader.readBool() }
  public func write(to writer: inout ByteWriter) { writer.write(self) }
}

extension String: WireCodable {
  public init(from reader: inout ByteReader) throws(TransportError) { self = try reader.readString() }
  public func write(to writer: inout ByteWriter) { writer.write(self) }
}

extension Array: WireCodable where Element: WireCodable {
  public init(from reader: inout ByteReader) throws(TransportError) {
    let count = try reader.readCount()
    self = []
    reserveCapacity(count)
    for _ in 0..<count { append(try Element(from: &reader)) }
  }

  public func write(to writer: inout ByteWriter) {
    writer.write(count)
    for element in self { element.write(to: &writer) }
  }
}

extension Optional: WireCodable where Wrapped: WireCodable {
  public init(from reader: inout ByteReader) throws(TransportError) {
    self = try reader.readBool() ? try Wrapped(from: &reader) : nil
  }

  public func write(to writer: inout ByteWriter) {
    writer.write(self != nil)
    self?.write(to: &writer)
  }
}
