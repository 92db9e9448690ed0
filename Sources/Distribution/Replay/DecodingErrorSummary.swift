/// A decoding failure in one line: where in the value, and what was wrong there.
///
/// ```swift
/// "\(DecodingErrorSummary(error))"  // at counter1.count: Expected to decode Int but found a string instead.
/// ```
struct DecodingErrorSummary: CustomStringConvertible {
  let error: any Error

  init(_ error: any Error) {
    self.error = error
  }

  var description: String {
    guard let error = error as? DecodingError else { return "\(error)" }
    let context: DecodingError.Context
    switch error {
    case let .typeMismatch(_, found), let .valueNotFound(_, found), let .keyNotFound(_, found), let .dataCorrupted(found):
      context = found
    @unknown default:
      return "\(error)"
    }
    let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    let place = path.isEmpty ? "at the top" : "at " + path.drop { $0 == "." }
    return "\(place): \(context.debugDescription)"
  }
}
