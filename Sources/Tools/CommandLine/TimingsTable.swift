import BulkheadDistribution
import Foundation

/// The timings of a composition's boundaries as a table, one row per boundary, for a person
/// at a terminal: the host prints it when its script ends, on Ctrl-C, and on SIGUSR1.
///
/// ```swift
/// print(TimingsTable(rows: [("counter1", timings)]).text)
/// ```
struct TimingsTable {
  let rows: [(boundary: String, timings: BoundaryTimings)]

  private static let columns: [(title: String, width: Int)] = [
    ("boundary", 20), ("actions", 8), ("p50", 9), ("p90", 9), ("p99", 9), ("max", 9), ("worker p50", 11),
    ("sent", 9), ("received", 9), ("patches h/w", 12), ("effect acts", 12), ("effect p50", 11),
    ("restarts", 9), ("stalls", 7), ("lost", 5),
  ]

  /// A header line, then a line per boundary.
  var text: String {
    ([Self.line(Self.columns.map(\.title))] + rows.map { Self.line(Self.cells($0.boundary, $0.timings)) })
      .joined(separator: "\n")
  }

  private static func cells(_ boundary: String, _ timings: BoundaryTimings) -> [String] {
    let trips = timings.remoteActions
    return [
      boundary, "\(trips.count)", duration(trips.percentile(0.5)), duration(trips.percentile(0.9)),
      duration(trips.percentile(0.99)), duration(trips.maximum), duration(timings.workerHandling.percentile(0.5)),
      bytes(timings.bytesSent), bytes(timings.bytesReceived),
      "\(timings.hostPatchBytes.count)/\(timings.workerPatchBytes.count)",
      "\(timings.effectActions.count)", duration(timings.effectActions.percentile(0.5)),
      "\(timings.restarts)", "\(timings.stalls)", "\(timings.effectsLost)",
    ]
  }

  private static func line(_ cells: [String]) -> String {
    zip(cells, columns).map { cell, column in
      cell.count >= column.width ? cell + " " : cell.padding(toLength: column.width, withPad: " ", startingAt: 0)
    }.joined().trimmingCharacters(in: .whitespaces)
  }

  /// `nanoseconds` in the unit that keeps it short: "850 ns", "42.1 µs", "3.20 ms", "1.50 s".
  static func duration(_ nanoseconds: UInt64) -> String {
    nanoseconds == 0 ? "-" : Duration.nanoseconds(Int64(clamping: nanoseconds)).readable
  }

  /// `count` bytes as "512 B", "12.5 KB", "3.1 MB".
  static func bytes(_ count: Int) -> String {
    switch count {
    case ..<1_024: return "\(count) B"
    case ..<(1 << 20): return String(format: "%.1f KB", Double(count) / 1_024)
    default: return String(format: "%.1f MB", Double(count) / Double(1 << 20))
    }
  }
}

extension Composition {
  /// The timings of every placed boundary as a table, one row per boundary in placement
  /// order; nil when nothing is placed or no timings are recorded.
  ///
  /// ```swift
  /// if let table = composition.timingsTable { print(table) }
  /// ```
  var timingsTable: String? {
    let rows = processes.compactMap { process in timings(of: process.boundary).map { (process.boundary, $0) } }
    return rows.isEmpty ? nil : TimingsTable(rows: rows).text
  }
}
