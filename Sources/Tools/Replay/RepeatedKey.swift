/// Finds a key that appears twice in one JSON object: `JSONSerialization` keeps the last and
/// says nothing, so a recording edited by hand into `{"step": 1, …, "step": 2}` would replay
/// as if it said only one of them.
///
/// ```swift
/// RepeatedKey.first(in: Array(#"{"a":1,"b":{"a":2},"a":3}"#.utf8))  // "a"
/// ```
enum RepeatedKey {
  /// The first key repeated within one object of `json`, at any depth; nil when there is none.
  /// Reads well-formed JSON only: a line is parsed first, and checked after.
  static func first(in json: some Collection<UInt8>) -> String? {
    // One entry per open object (its keys so far) or array (nil).
    var open: [Set<[UInt8]>?] = []
    var string: [UInt8] = []
    var inString = false
    var escaped = false
    var lastString: [UInt8]?
    for byte in json {
      if inString {
        if escaped {
          escaped = false
          string.append(byte)
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
          string.append(byte)
        } else if byte == UInt8(ascii: "\"") {
          inString = false
          lastString = string
        } else {
          string.append(byte)
        }
        continue
      }
      switch byte {
      case UInt8(ascii: "\""):
        inString = true
        string = []
      case UInt8(ascii: ":"):
        // The string just read is a key of the innermost object.
        guard let key = lastString, let keys = open.last, var seen = keys else { break }
        guard seen.insert(key).inserted else { return String(decoding: key, as: UTF8.self) }
        open[open.count - 1] = seen
      case UInt8(ascii: "{"): open.append([])
      case UInt8(ascii: "["): open.append(nil)
      case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = open.popLast()
      case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): continue
      default: break
      }
      lastString = nil
    }
    return nil
  }
}
