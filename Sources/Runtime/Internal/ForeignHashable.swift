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
  static func withoutAddresses(_ text: String) -> String {
    guard text.contains("(unknown context at $") else { return text }
    return text.replacing(/\(unknown context at \$[0-9a-fA-F]+\)/, with: "(private)")
  }
}
