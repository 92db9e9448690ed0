/// A cancel id or navigation step that came from another process, compared by its
/// description: equal ids of the same type describe themselves equally.
package struct ForeignHashable: Hashable, Sendable {
  package let description: String

  package init(description: String) { self.description = description }

  package init(describing value: AnyHashableSendable) {
    let base = value.base.base
    description = "\(String(reflecting: type(of: base)))(\(String(reflecting: base)))"
  }
}
