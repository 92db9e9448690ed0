/// One type that the codec lays out itself (integers, floats, `Bool`, `String`, data),
/// encoded and decoded directly, as `BinaryEncoder` and `BinaryDecoder` would, without their
/// tree of nodes, their input or a dynamic cast per value: for a caller that handles one such
/// value at a time, as a patch of one field does on every action.
///
/// ```swift
/// if let coding = PrimitiveCoding(Int.self) {
///   let bytes = coding.encode(42)          // == try BinaryEncoder().encode(42)
///   let value = try coding.decode(bytes)   // 42
/// }
/// ```
package struct PrimitiveCoding<Value>: Sendable {
  package let encode: @Sendable (Value) -> [UInt8]
  /// Throws a `DecodingError` when the bytes are not exactly one `Value`.
  package let decode: @Sendable ([UInt8]) throws -> Value

  /// Nil when the codec lays out `Value` through `Codable` containers.
  package init?(_: Value.Type) {
    // Made for the type opened from the cast, which is `Value` itself.
    guard let primitive = Value.self as? any BinaryPrimitive.Type, let coding = Self.made(for: primitive) as? Self
    else { return nil }
    self = coding
  }

  private init(encode: @escaping @Sendable (Value) -> [UInt8], decode: @escaping @Sendable ([UInt8]) throws -> Value) {
    self.encode = encode
    self.decode = decode
  }

  private static func made<Primitive: BinaryPrimitive>(for _: Primitive.Type) -> Any {
    PrimitiveCoding<Primitive>(
      encode: { value in
        var bytes: [UInt8] = []
        value.write(to: &bytes)
        return bytes
      },
      decode: { bytes in
        do throws(PrimitiveMalformation) {
          return try Primitive.read(bytes, in: bytes.indices)
        } catch {
          throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: error.message))
        }
      })
  }
}
