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
      td:not(:first-child):not(:last-child), th { white-space: nowrap; }
      .charts { display: flex; flex-wrap: wrap; gap: 1.5em; }
      figure { margin: 0; } figcaption { font-weight: 600; margin-bottom: 4px; }
      svg text { font: 11px system-ui, sans-serif; fill: #333; }
      </style></head><body>
      <h1>Bulkhead study: \(Self.escape(app))</h1>
      <p>Each placement ran the app's script; every action of the root reducer was timed, so a boundary in a worker
      shows the round trip it costs. \(faultWords)</p>
      \(summaryTable)
      <h2>Latency per action</h2>
      \(distributions(measured))
      <div class="charts">\(measured.map(histogram).joined())</div>
      <h2>Bytes crossed per action</h2>
      \(bytesChart(measured))
      <h2>Faults and recovery</h2>
      <div class="charts">\(faulted.map(timeline).joined())</div>
      </body></html>

      """
  }

  /// Where the faults landed.
  private var faultWords: String {
    guard let action = runs.lazy.compactMap(\.faultAction).first else { return "" }
    return "Faults were injected at action \(action) of one pass of the script."
  }

  private var summaryTable: String {
    let rows = StudyTable(runs).rows.map { "<tr>" + $0.map { "<td>\(Self.keepingUnits(Self.escape($0)))</td>" }.joined() + "</tr>" }
    return "<table><tr>" + StudyTable.header.map { "<th>\($0)</th>" }.joined() + "</tr>" + rows.joined() + "</table>"
  }

  /// `text` with a no-break space between each number and its unit, so that a table cell
  /// that wraps never puts "ms" on a line of its own.
  static func keepingUnits(_ text: String) -> String {
    text.replacing(/(\d) (µs|ms|s|B)\b/) { "\($0.1)\u{a0}\($0.2)" }
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

  /// The run's actions as ticks along its time (taller for slower ones) over labelled time
  /// ticks, the fault as a red line, and what the supervisor did after it: each kind of event
  /// on a lane of its own, and events of one kind that fall close together staggered, so that
  /// no marker hides another.
  private func timeline(_ run: StudyRun) -> String {
    let (width, left, right, axis, lane) = (600.0, 78.0, 16.0, 120.0, 16.0)
    let span = max(Self.microseconds(run.duration), 1)
    func x(_ offset: Duration) -> Double { left + (width - left - right) * Self.microseconds(offset) / span }
    var shapes = "<line x1=\"\(left)\" y1=\"\(axis)\" x2=\"\(width - right)\" y2=\"\(axis)\" stroke=\"#999\"/>"
    let step = Self.tickStep(span: span)
    for tick in stride(from: 0.0, through: span, by: step) {
      let tickX = x(.microseconds(tick))
      shapes += "<line x1=\"\(tickX)\" y1=\"\(axis)\" x2=\"\(tickX)\" y2=\"\(axis + 4)\" stroke=\"#999\"/>"
      shapes += Self.text(x: tickX, y: axis + 15, StudyTable.format(.microseconds(tick)), anchor: "middle")
    }
    for (start, latency) in zip(run.starts, run.latencies) {
      let tick = 8 + 8 * log2(max(1, Self.microseconds(latency)))
      shapes += "<line x1=\"\(x(start))\" y1=\"\(axis)\" x2=\"\(x(start))\" y2=\"\(axis - min(tick, axis - 10))\" stroke=\"#3b7dd8\" stroke-width=\"2\"/>"
    }
    for moment in run.moments where moment.kind == .fault {
      shapes += "<line x1=\"\(x(moment.offset))\" y1=\"10\" x2=\"\(x(moment.offset))\" y2=\"\(axis)\" stroke=\"\(Self.colors[.fault] ?? "#000")\" stroke-width=\"2\"><title>\(Self.escape(moment.text))</title></line>"
    }
    shapes += Self.text(x: 0, y: 20, "fault", color: Self.colors[.fault])
    let lanes = Self.laneKinds.filter { kind in run.moments.contains { $0.kind == kind } }
    for (row, kind) in lanes.enumerated() {
      let y = axis + 30 + Double(row) * lane
      let color = Self.colors[kind] ?? "#000"
      shapes += Self.text(x: 0, y: y + 4, kind.rawValue)
      var lastX = -Double.infinity
      var staggered = false
      for moment in run.moments where moment.kind == kind {
        let markX = x(moment.offset)
        // Closer than a marker's width to the one before: drawn a little higher or lower.
        staggered = markX - lastX < 9 ? !staggered : false
        lastX = markX
        let markY = y + (staggered ? -5 : 0)
        shapes += "<circle cx=\"\(markX)\" cy=\"\(markY)\" r=\"4\" fill=\"\(color)\"><title>\(Self.escape(moment.text))</title></circle>"
      }
    }
    let height = axis + 30 + Double(lanes.count) * lane
    let caption = "\(StudyTable.faultWords(of: run)) — \(StudyTable.outcome(of: run))"
    return Self.figure(caption, width: width, height: height, shapes)
  }

  /// The colour of each kind of moment on a timeline.
  private static let colors: [StudyRun.Moment.Kind: String] = [
    .fault: "#d62728", .stall: "#ff7f0e", .exit: "#7f7f7f", .restart: "#2ca02c", .effectsLost: "#9467bd", .limit: "#e377c2",
    .failure: "#8c564b",
  ]

  /// The kinds that get a lane under a timeline's axis, in the order they usually happen.
  private static let laneKinds: [StudyRun.Moment.Kind] = [.stall, .limit, .exit, .restart, .effectsLost, .failure]

  /// A step of 1, 2 or 5 times a power of ten that cuts `span` (µs) into at most six parts.
  static func tickStep(span: Double) -> Double {
    var power = 1.0
    while true {
      for factor in [1.0, 2.0, 5.0] where span / (factor * power) <= 6 { return factor * power }
      power *= 10
    }
  }

  /// Every placement's latencies as one cumulative distribution: for each latency (log
  /// scale), the share of actions that took no longer. Placements compare at every
  /// percentile at once, not only at p50 and p99.
  private func distributions(_ runs: [StudyRun]) -> String {
    let (width, height, left, bottom, top) = (640.0, 260.0, 40.0, 34.0, 10.0)
    let plotWidth = width - left - 170
    let plotHeight = height - bottom - top
    // From 1 µs to the slowest action, in powers of two.
    let slowest = runs.flatMap(\.latencies).map(Self.microseconds).max() ?? 1
    let doublings = max(1, log2(max(slowest, 2)).rounded(.up))
    func x(_ microseconds: Double) -> Double { left + plotWidth * log2(max(1, microseconds)) / doublings }
    func y(_ share: Double) -> Double { top + plotHeight * (1 - share) }
    var shapes = "<line x1=\"\(left)\" y1=\"\(y(0))\" x2=\"\(left + plotWidth)\" y2=\"\(y(0))\" stroke=\"#999\"/>"
    shapes += "<line x1=\"\(left)\" y1=\"\(y(0))\" x2=\"\(left)\" y2=\"\(y(1))\" stroke=\"#999\"/>"
    for share in [0.0, 0.5, 0.9, 1.0] {
      shapes += Self.text(x: left - 4, y: y(share) + 4, "\(Int(share * 100))%", anchor: "end")
    }
    for power in stride(from: 0.0, through: doublings, by: max(1, (doublings / 6).rounded(.up))) {
      let microseconds = pow(2, power)
      shapes += Self.text(x: x(microseconds), y: height - bottom + 15, StudyTable.format(.microseconds(microseconds)), anchor: "middle")
    }
    shapes += Self.text(x: left + plotWidth / 2, y: height - 4, "latency per action (log scale)", anchor: "middle")
    for (index, run) in runs.enumerated() where !run.latencies.isEmpty {
      let color = Self.palette[index % Self.palette.count]
      let sorted = run.latencies.map(Self.microseconds).sorted()
      var points = "\(x(sorted[0])),\(y(0))"
      for (rank, latency) in sorted.enumerated() {
        points += " \(x(latency)),\(y(Double(rank) / Double(sorted.count))) \(x(latency)),\(y(Double(rank + 1) / Double(sorted.count)))"
      }
      shapes += "<polyline points=\"\(points)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"/>"
      let legendY = top + 14 + Double(index) * 18
      shapes += "<line x1=\"\(left + plotWidth + 12)\" y1=\"\(legendY - 4)\" x2=\"\(left + plotWidth + 30)\" y2=\"\(legendY - 4)\" stroke=\"\(color)\" stroke-width=\"3\"/>"
      shapes += Self.text(x: left + plotWidth + 36, y: legendY, run.placement)
    }
    return Self.figure("share of actions at or below each latency", width: width, height: height, shapes)
  }

  /// Line colours for the placements compared on one chart.
  static let palette = ["#1f77b4", "#e6550d", "#31a354", "#756bb1", "#636363", "#17becf", "#bcbd22", "#e7298a"]

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

  private static func text(x: Double, y: Double, _ text: String, anchor: String = "start", color: String? = nil) -> String {
    let fill = color.map { " style=\"fill: \($0)\"" } ?? ""
    return "<text x=\"\(x)\" y=\"\(y)\" text-anchor=\"\(anchor)\"\(fill)>\(escape(text))</text>"
  }

  private static func microseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
  }

  static func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
  }
}
