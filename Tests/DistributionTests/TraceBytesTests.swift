@testable import BulkheadTools
import Foundation
import Testing

/// The pieces of JSON the trace writes as bytes read back as what they were.
@Suite struct TraceBytesTests {
  private func written(_ write: (inout [UInt8]) -> Void) -> String {
    var bytes: [UInt8] = []
    write(&bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  @Test func aStringWithQuotesControlsAndNonASCIIReadsBackAsItWas() throws {
    let text = "a \"quoted\"\nname\t\r\u{1}\u{1F} \\ é ✓"
    let literal = written { $0.appendJSONString(text) }
    #expect(literal == #""a \"quoted\"\nname\t\r\u0001\u001f \\ é ✓""#)
    let decoded = try JSONSerialization.jsonObject(with: Data(literal.utf8), options: .fragmentsAllowed) as? String
    #expect(decoded == text)
    #expect(written { $0.appendJSONString("plain") } == #""plain""#)
    #expect(jsonString("") == #""""#)
  }

  @Test func numbersAreDecimalAndTimesAreMicrosecondsWithThreeDecimals() {
    #expect(written { $0.appendDecimal(UInt64(0)) } == "0")
    #expect(written { $0.appendDecimal(UInt64.max) } == "18446744073709551615")
    #expect(written { $0.appendDecimal(Int64.min) } == "-9223372036854775808")
    #expect(written { $0.appendDecimal(Int64(-42)) } == "-42")
    #expect(written { $0.appendMicroseconds(5) } == "0.005")
    #expect(written { $0.appendMicroseconds(1_234_567) } == "1234.567")
    #expect(written { $0.appendMicroseconds(-1_230) } == "-1.230")
  }
}
