import Bulkhead
import BulkheadDistribution
import Foundation

/// A study as one self-contained HTML page: inline SVG charts, no script and nothing fetched
/// from elsewhere, so it opens from a file in any browser. Latency histograms per placement,
/// bytes per action, and a timeline of each fault and the recovery after it.
///
/// ```swift
/// let html = StudyReport(app: "two-counters", runs: runs).html
/// try html.write(toFile: "study.html", atomically: true, encoding: .utf8)
/// ```
package struct StudyReport: Sendable {
  package let app: String
  package let runs: [StudyRun]

  package init(app: String, runs: [StudyRun]) {
    self.app = app
    self.runs = runs
  }

  package var html: String {
    let measured = runs.filter { $0.fault == nil }
    let faulted = runs.filter { $0.fault != nil }
    return """
      <!DOCTYPE html>
      <html lang="en"><head><meta charset="utf-8">
      <title>Bulkhead study: \(Self.escape(app))</title>
      <style>
      body { font: 14px system-ui, sans-serif; margin: 2em; color: #222; }
      h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
      table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 4px 8px; text-align: left; }
      .charts { display: flex; flex-wrap: wrap; gap: 1.5em; }
      figure { margin: 0; } figcaption { font-weight: 600; margin-bottom: 4px; }
      svg text { font: 11px system-ui, sans-serif; fill: #333; }
      </style></head><body>
      <h1>Bulkhead study: \(Self.escape(app))</h1>
      <p>Each placement ran the app's script; every action of the root reducer was timed, so a boundary in a worker
      shows the round trip it costs. Faults were injected halfway through one pass of the script.</p>
      \(summaryTable)
      <h2>Latency per action</h2>
      <div class="charts">\(measured.map(histogram).joined())</div>
      <h2>Bytes crossed per action</h2>
      \(bytesChart(measured))
      <h2>Faults and recovery</h2>
      <div class="charts">\(faulted.map(timeline).joined())</div>
      </body></html>

      """
  }

  private var summaryTable: String {
    let rows = StudyTable(runs).rows.map { "<tr>" + $0.map { "<td>\(Self.escape($0))</td>" }.joined() + "</tr>" }
    return "<table><tr>" + StudyTable.header.map { "<th>\($0)</th>" }.joined() + "</tr>" + rows.joined() + "</table>"
  }

  /// Latencies in buckets that double from 1 µs, as bars.
  private func histogram(_ run: StudyRun) -> String {
    let buckets = 24
    var counts = [Int](repeating: 0, count: buckets)
    for latency in run.latencies {
      let microseconds = max(1, Self.microseconds(latency))
      counts[min(buckets - 1, Int(log2(microseconds)))] += 1
    }
    let (width, height, left, bottom) = (360.0, 140.0, 30.0, 24.0)
    let barWidth = (width - left) / Double(buckets)
    let tallest = Double(counts.max() ?? 1)
    var shapes = ""
    for (bucket, count) in counts.enumerated() where count > 0 {
      let barHeight = (height - bottom - 10) * Double(count) / tallest
      let x = left + Double(bucket) * barWidth
      shapes += Self.rect(x: x + 1, y: height - bottom - barHeight, width: barWidth - 2, height: barHeight, color: "#3b7dd8")
    }
    for (bucket, label) in [(0, "1µs"), (7, "128µs"), (10, "1ms"), (14, "16ms"), (20, "1s")] {
      shapes += Self.text(x: left + Double(bucket) * barWidth, y: height - 6, label)
    }
    shapes += Self.text(x: 0, y: 14, "\(Int(tallest))")
    shapes += "<line x1=\"\(left)\" y1=\"\(height - bottom)\" x2=\"\(width)\" y2=\"\(height - bottom)\" stroke=\"#999\"/>"
    let caption = "\(run.placement) — p50 \(StudyTable.format(run.latency(percentile: 0.5))), p99 \(StudyTable.format(run.latency(percentile: 0.99)))"
    return Self.figure(caption, width: width, height: height, shapes)
  }

  /// One bar per placement: the bytes that crossed per action.
  private func bytesChart(_ runs: [StudyRun]) -> String {
    let (width, rowHeight, left) = (640.0, 24.0, 220.0)
    let widest = max(1, runs.map(\.bytesPerAction).max() ?? 1)
    var shapes = ""
    for (row, run) in runs.enumerated() {
      let y = Double(row) * rowHeight
      let barWidth = (width - left - 60) * run.bytesPerAction / widest
      shapes += Self.text(x: 0, y: y + 16, run.placement)
      shapes += Self.rect(x: left, y: y + 4, width: max(barWidth, 1), height: rowHeight - 8, color: "#5aa469")
      shapes += Self.text(x: left + barWidth + 6, y: y + 16, String(format: "%.0f B", run.bytesPerAction))
    }
    return Self.figure("bytes per action", width: width, height: rowHeight * Double(max(runs.count, 1)), shapes)
  }

  /// The run's actions as ticks along its time (taller for slower ones), the fault as a red
  /// line, and what the supervisor did after it.
  private func timeline(_ run: StudyRun) -> String {
    let (width, height, left, axis) = (560.0, 185.0, 10.0, 120.0)
    let span = max(Self.microseconds(run.duration), 1)
    func x(_ offset: Duration) -> Double { left + (width - 2 * left) * Self.microseconds(offset) / span }
    var shapes = "<line x1=\"\(left)\" y1=\"\(axis)\" x2=\"\(width - left)\" y2=\"\(axis)\" stroke=\"#999\"/>"
    shapes += Self.text(x: left, y: axis + 32, "0")
    shapes += Self.text(x: width - left - 60, y: axis + 32, StudyTable.format(run.duration))
    for (start, latency) in zip(run.starts, run.latencies) {
      let tick = 8 + 8 * log2(max(1, Self.microseconds(latency)))
      shapes += "<line x1=\"\(x(start))\" y1=\"\(axis)\" x2=\"\(x(start))\" y2=\"\(axis - min(tick, axis - 10))\" stroke=\"#3b7dd8\" stroke-width=\"2\"/>"
    }
    let colors: [StudyRun.Moment.Kind: String] = [
      .fault: "#d62728", .stall: "#ff7f0e", .exit: "#7f7f7f", .restart: "#2ca02c", .effectsLost: "#9467bd", .limit: "#e377c2",
      .failure: "#8c564b",
    ]
    for moment in run.moments {
      let color = colors[moment.kind] ?? "#000"
      if moment.kind == .fault {
        shapes += "<line x1=\"\(x(moment.offset))\" y1=\"10\" x2=\"\(x(moment.offset))\" y2=\"\(axis)\" stroke=\"\(color)\" stroke-width=\"2\"/>"
      } else {
        shapes += "<circle cx=\"\(x(moment.offset))\" cy=\"\(axis + 12)\" r=\"5\" fill=\"\(color)\"><title>\(Self.escape(moment.text))</title></circle>"
      }
    }
    var legend = left
    for kind in [StudyRun.Moment.Kind.fault, .stall, .limit, .exit, .restart, .effectsLost] {
      shapes += "<circle cx=\"\(legend + 5)\" cy=\"\(height - 10)\" r=\"5\" fill=\"\(colors[kind] ?? "#000")\"/>"
      shapes += Self.text(x: legend + 13, y: height - 6, kind.rawValue)
      legend += 90
    }
    let caption = "\(run.fault.map { "\($0)" } ?? "") — \(StudyTable.outcome(of: run))"
    return Self.figure(caption, width: width, height: height, shapes)
  }

  private static func figure(_ caption: String, width: Double, height: Double, _ shapes: String) -> String {
    """
    <figure><figcaption>\(escape(caption))</figcaption>\
    <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
    viewBox="0 0 \(Int(width)) \(Int(height))" role="img">\(shapes)</svg></figure>
    """
  }

  private static func rect(x: Double, y: Double, width: Double, height: Double, color: String) -> String {
    "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(width)\" height=\"\(height)\" fill=\"\(color)\"/>"
  }

  private static func text(x: Double, y: Double, _ text: String) -> String {
    "<text x=\"\(x)\" y=\"\(y)\">\(escape(text))</text>"
  }

  private static func microseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
  }

  static func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
  }
}
