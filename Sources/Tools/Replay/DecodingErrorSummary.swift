import Bulkhead
import BulkheadDistribution

/// A decoding failure in one line: where in the value, and what was wrong there.
///
/// ```swift
/// "\(DecodingErrorSummary(error))"  // at counter1.count: Expected to decode Int but found a string instead.
/// ```
struct DecodingErrorSummary: CustomStringConvertible {
  let error: any Error
  /// Whether the text decoded was known to be JSON: Foundation's decoder on Linux calls a
  /// number that does not fit its field invalid JSON, with no place.
  let isJSON: Bool

  init(_ error: any Error, ofJSONThatParsed isJSON: Bool = false) {
    self.error = error
    self.isJSON = isJSON
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
    if isJSON, case .dataCorrupted = error, context.codingPath.isEmpty {
      return "a value does not fit its field (a fraction, or a number too large, where a whole number goes, say); "
        + "the decoder does not say where"
    }
    let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    let place = path.isEmpty ? "at the top" : "at " + path.drop { $0 == "." }
    return "\(place): \(context.debugDescription)"
  }
}
