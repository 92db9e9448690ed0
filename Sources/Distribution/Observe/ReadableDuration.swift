import Foundation

extension Duration {
  /// The duration as a person reads it in a log or a table, in the largest unit under which it
  /// is at least 1: "850 ns", "32.5 µs", "3.85 ms", "2.10 s".
  ///
  /// ```swift
  /// Duration.microseconds(32.5).readable  // "32.5 µs"
  /// ```
  package var readable: String {
    let (seconds, attoseconds) = components
    let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    switch nanoseconds {
    case ..<1_000: return String(format: "%.0f ns", nanoseconds)
    case ..<1_000_000: return String(format: "%.1f µs", nanoseconds / 1e3)
    case ..<1_000_000_000: return String(format: "%.2f ms", nanoseconds / 1e6)
    default: return String(format: "%.2f s", nanoseconds / 1e9)
    }
  }
}
