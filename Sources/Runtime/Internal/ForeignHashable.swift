/// A cancel id or navigation step that came from another process, compared by its
/// description: equal ids of the same type describe themselves equally.
package struct ForeignHashable: Hashable, Sendable {
  package let description: String

  package init(description: String) { self.description = description }

  package init(describing value: AnyHashableSendable) {
    let base = value.base.base
    description = Self.withoutAddresses("\(String(reflecting: type(of: base)))(\(String(reflecting: base)))")
  }

  /// `text` with the addresses that the names of private types carry ("Timer.(unknown context
  /// at $55f9cf4c90c8).CancelID") left out: they differ from one process to the next, and
  /// between a host and its workers' executable, where the same id must describe itself the
  /// same (a feature's private `CancelID` cancelled from the other side of a boundary).
  ///
  /// A scan of the UTF-8 bytes, not a regular expression: cancellation compares ids this way
  /// for every effect it looks at, on the store's actor.
  static func withoutAddresses(_ text: String) -> String {
    let marker = Array("(unknown context at $".utf8)
    let bytes = Array(text.utf8)
    guard bytes.count >= marker.count else { return text }
    var result: [UInt8] = []
    var index = 0
    var changed = false
    while index < bytes.count {
      if bytes[index] == marker[0], index + marker.count <= bytes.count, bytes[index..<index + marker.count].elementsEqual(marker),
        let close = bytes[(index + marker.count)...].firstIndex(of: UInt8(ascii: ")"))
      {
        result += Array("(private)".utf8)
        index = close + 1
        changed = true
      } else {
        result.append(bytes[index])
        index += 1
      }
    }
    return changed ? String(decoding: result, as: UTF8.self) : text
  }
}
