/// The case names of an enum type, read from the runtime's metadata: what a tool lists when
/// a value names a case its enum does not have.
///
/// ```swift
/// EnumCaseNames.of(Counter.Action.self)  // ["decrementButtonTapped", "incrementButtonTapped"]
/// ```
package enum EnumCaseNames {
  /// The names of `type`'s cases, those with a payload first, each group in declaration
  /// order; nil when `type` is not an enum whose layout the runtime describes.
  package static func of(_ type: Any.Type) -> [String]? {
    func names<Root>(_: Root.Type) -> [String]? { EnumLayout.of(Root.self)?.cases.map(\.name) }
    return names(type)
  }
}
