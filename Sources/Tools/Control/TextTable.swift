import Bulkhead
import BulkheadDistribution
import Foundation

/// Rows of text in columns as wide as their widest cell, for `ps` and `top`.
///
/// ```swift
/// TextTable([["PID", "STATE"], ["4711", "S"]]).lines  // ["PID   STATE", "4711  S"]
/// ```
struct TextTable {
  let rows: [[String]]

  init(_ rows: [[String]]) { self.rows = rows }

  /// `text` in lines of at most `width` characters, broken at spaces (a longer word stays
  /// whole), the lines after the first indented two spaces: for `top`'s 80 columns.
  ///
  /// ```swift
  /// TextTable.wrap("FAILED: timers: restarted 3 times within 10.0 seconds", width: 30)
  /// ```
  static func wrap(_ text: String, width: Int = 80) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
      if !line.isEmpty, line.count + 1 + word.count > width {
        lines.append(line)
        line = "  "
      }
      line += (line.isEmpty || line == "  " ? "" : " ") + word
    }
    return lines + [line]
  }

  var lines: [String] {
    let widths = rows.reduce(into: [Int]()) { widths, row in
      for (column, cell) in row.enumerated() {
        if column == widths.count { widths.append(0) }
        widths[column] = max(widths[column], cell.count)
      }
    }
    return rows.map { row in
      row.enumerated().map { column, cell in
        column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
      }.joined(separator: "  ")
    }
  }
}

/// How `ps` and `top` write amounts.
enum Amount {
  /// The local time of day, `14:05:09`: plain ASCII, as a pipe may take it.
  static func timeOfDay(_ date: Date = Date()) -> String {
    var seconds = time_t(date.timeIntervalSince1970)
    var parts = tm()
    localtime_r(&seconds, &parts)
    return [parts.tm_hour, parts.tm_min, parts.tm_sec].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
  }

  /// `1:05` or `2:01:05`.
  static func duration(seconds: Double) -> String {
    let whole = Int(seconds)
    let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
    let tail = "\(minutes < 10 && hours > 0 ? "0" : "")\(minutes):\(rest < 10 ? "0" : "")\(rest)"
    return hours > 0 ? "\(hours):\(tail)" : tail
  }

  /// `512 B`, `3.1 KiB`, `12.0 MiB`.
  static func bytes(_ count: Double) -> String {
    switch count {
    case ..<1024: "\(Int(count.rounded())) B"
    case ..<(1024 * 1024): "\(decimal(count / 1024)) KiB"
    default: "\(decimal(count / 1024 / 1024)) MiB"
    }
  }

  /// One decimal.
  static func decimal(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
  }

  /// Two decimals.
  static func hundredths(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
  }
}
