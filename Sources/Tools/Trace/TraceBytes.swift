/// The pieces of a trace event's JSON, appended as bytes: the trace formats hundreds of bytes
/// per crossing, and building them as `String`s through interpolation and dictionaries cost
/// more than the crossing itself.
extension [UInt8] {
  /// `text` as it is (JSON punctuation and keys, known not to need escaping).
  mutating func append(_ text: StaticString) {
    text.withUTF8Buffer { append(contentsOf: $0) }
  }

  /// `value` in decimal.
  mutating func appendDecimal(_ value: UInt64) {
    guard value >= 10 else { return append(UInt8(ascii: "0") + UInt8(value)) }
    // 20 digits hold any `UInt64`; written from the last digit back.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var rest = value
      var first = digits.count
      while rest > 0 {
        first -= 1
        digits[first] = UInt8(ascii: "0") + UInt8(rest % 10)
        rest /= 10
      }
      // As a buffer, not a slice of one: appending a slice went through the generic path.
      append(contentsOf: UnsafeBufferPointer(rebasing: digits[first...]))
    }
  }

  /// `value` in decimal, with its sign.
  mutating func appendDecimal(_ value: Int64) {
    if value < 0 { append(UInt8(ascii: "-")) }
    appendDecimal(value.magnitude)
  }

  /// `nanoseconds` as microseconds with three decimals: `12.345`.
  mutating func appendMicroseconds(_ nanoseconds: Int64) {
    if nanoseconds < 0 { append(UInt8(ascii: "-")) }
    let magnitude = nanoseconds.magnitude
    appendDecimal(magnitude / 1_000)
    append(UInt8(ascii: "."))
    let fraction = magnitude % 1_000
    append(UInt8(ascii: "0") + UInt8(fraction / 100))
    append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
    append(UInt8(ascii: "0") + UInt8(fraction % 10))
  }

  /// `text` as a JSON string literal, quotes included.
  mutating func appendJSONString(_ text: String) {
    append(UInt8(ascii: "\""))
    appendJSONContent(text)
    append(UInt8(ascii: "\""))
  }

  /// `text` escaped for the inside of a JSON string literal, so that a literal can be made of
  /// several texts without joining them first. Only ASCII needs escaping in JSON, so the UTF-8
  /// bytes go through as they are, and a text with nothing to escape in one copy.
  mutating func appendJSONContent(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
      if bytes.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
        append(contentsOf: bytes)
      } else {
        for byte in bytes { appendEscaped(byte) }
      }
    }
  }

  private mutating func appendEscaped(_ byte: UInt8) {
    switch byte {
    case UInt8(ascii: "\""): append("\\\"")
    case UInt8(ascii: "\\"): append("\\\\")
    case UInt8(ascii: "\n"): append("\\n")
    case UInt8(ascii: "\t"): append("\\t")
    case UInt8(ascii: "\r"): append("\\r")
    case ..<0x20:
      let hex: StaticString = "0123456789abcdef"
      append("\\u00")
      hex.withUTF8Buffer { digits in
        append(digits[Int(byte >> 4)])
        append(digits[Int(byte & 0xF)])
      }
    default: append(byte)
    }
  }
}

/// `text` as a JSON string literal, quotes included.
func jsonString(_ text: String) -> String {
  var bytes: [UInt8] = []
  bytes.appendJSONString(text)
  return String(decoding: bytes, as: UTF8.self)
}
