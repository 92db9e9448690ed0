/// The runtime warning of an operator (`ifLet`, `ifCaseLet`, `forEach`, `Scope`) that got an
/// action for a child that is not there: what happened, where, at which boundary, and how to
/// fix the usual causes.
///
/// ```swift
/// OperatorWarning.missingChild(
///   headline: "An \"ifLet\" at \(location) received a child action when child state was \"nil\"",
///   boundary: toChildAction.name(in: action), details: ["Action": "\(action)"],
///   causes: [...], at: location)
/// ```
enum OperatorWarning {
  static func missingChild(
    headline: String, boundary caseName: String?, details: KeyValuePairs<String, String>,
    causes: [String], at location: SourceLocation
  ) {
    let path = BoundaryPath.joining(
      BoundaryContext.current?.path ?? "", caseName ?? BoundaryPath.unnamed)
    let lines = [("Boundary", path)] + details.map { ($0.key, $0.value) }
    RuntimeWarning.report(
      """
      \(headline). The action was ignored.

      \(lines.map { "  \($0.0): \($0.1)" }.joined(separator: "\n"))

      \(causes.map { "• " + $0 }.joined(separator: "\n"))
      """, at: location)
  }

  /// The cause shared by every operator: something sent the action from outside while the
  /// child was absent.
  static let sentFromOutside =
    "Code sent the action from outside (a test, a tool, another process) while the child was "
    + "absent. To fix it, send child actions only while the child is present."
}
