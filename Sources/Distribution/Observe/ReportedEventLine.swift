import Foundation

/// How a worker that places boundaries of its own reports its inner workers' events to the
/// host: one line on its standard error, which the host reads anyway (it labels every line
/// with the boundary), marked so that the host can tell it from the feature's own output and
/// turn it back into a typed `BoundaryEvent.nested`.
///
/// ```swift
/// let line = ReportedEventLine.line(for: event)               // in the outer worker
/// if let event = ReportedEventLine.event(in: line) { ... }    // in the host
/// ```
enum ReportedEventLine {
  /// What the line starts with; the event follows as JSON. A feature that writes a line
  /// starting so with something that is not an event gets its line shown as it is.
  static let marker = "bulkhead-event: "

  /// The line that carries `event`; its readable description when it cannot be encoded.
  static func line(for event: BoundaryEvent) -> String {
    guard let json = try? JSONEncoder().encode(event) else { return "event: \(event)" }
    return marker + String(decoding: json, as: UTF8.self)
  }

  /// The event `line` carries, or nil for any other line.
  static func event(in line: String) -> BoundaryEvent? {
    guard line.hasPrefix(marker) else { return nil }
    return try? JSONDecoder().decode(BoundaryEvent.self, from: Data(line.utf8.dropFirst(marker.utf8.count)))
  }
}
