@testable import BulkheadTools
import Testing

/// A key twice in one JSON object is found at any depth, and only in one object: the same key
/// in sibling or nested objects, inside strings, or escaped differently is no repetition.
@Suite struct RepeatedKeyTests {
  @Test(arguments: [
    (#"{"a":1,"b":2}"#, nil),
    (#"{"a":1,"a":2}"#, "a"),
    (#"{ "a" : 1 , "b" : { "c" : 2 , "c" : 3 } }"#, "c"),
    (#"[{"x":1,"x":2}]"#, "x"),
    (#"{"a":[{"b":1},{"b":2}]}"#, nil),
    (#"{"k":{"k":1}}"#, nil),
    (#"{"a":"a:","b":"a"}"#, nil),
    (#"{"a\"":1,"a":2}"#, nil),
    (#"{"s":"{\"t\":1,\"t\":2}"}"#, nil),
    (#"{"a":{"b":1},"a":2}"#, "a"),
  ] as [(String, String?)])
  func findsAKeyRepeatedInOneObject(json: String, repeated: String?) {
    #expect(RepeatedKey.first(in: Array(json.utf8)) == repeated, "\(json)")
  }
}
