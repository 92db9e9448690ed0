/// Measures how long one call of `body` takes: the best of several rounds, each running
/// `body` `iterations` times, so that a noisy neighbour only slows rounds we discard.
package func nanosecondsPerCall(iterations: Int, rounds: Int = 7, _ body: () -> Void) -> Double {
  let clock = ContinuousClock()
  var best = Duration.seconds(1_000_000)
  for _ in 0..<rounds {
    let elapsed = clock.measure {
      for _ in 0..<iterations { body() }
    }
    best = min(best, elapsed)
  }
  let (seconds, attoseconds) = best.components
  return (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(iterations)
}

/// Keeps the optimiser from deleting work whose result is otherwise unused.
@inline(never)
package func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}

/// One row of a results table.
package struct Row {
  /// What the row must show to meet its goal.
  package enum Goal {
    /// A ratio to the row's baseline of at most this.
    case ratio(Double)
    /// A value of at most this, in the row's unit.
    case value(Double)
  }

  package let name: String
  package let value: Double
  package let unit: String
  package let baseline: Double?
  package var goal: Goal? = nil
  /// False for a figure with nothing to compare it to, such as a count: no ratio is shown.
  package var hasRatio = true

  package init(name: String, value: Double, unit: String, baseline: Double?, goal: Goal? = nil, hasRatio: Bool = true) {
    (self.name, self.value, self.unit, self.baseline, self.goal, self.hasRatio) = (name, value, unit, baseline, goal, hasRatio)
  }

  package var ratio: String {
    guard let baseline else { return hasRatio ? "1.00× (baseline)" : "—" }
    return String(format: "%.2f×", value / baseline)
  }

  /// The goal and whether this run met it; empty without a goal.
  package var verdict: String {
    switch goal {
    case nil: ""
    case let .ratio(limit): "≤ \(Self.format(limit))×: " + (baseline.map { value / $0 <= limit } == true ? "met" : "not met")
    case let .value(limit): "≤ \(Self.format(limit))\(unit.isEmpty ? "" : " " + unit): " + (value <= limit ? "met" : "not met")
    }
  }

  private static func format(_ number: Double) -> String {
    // Two decimals at most, and no trailing zeros: 2, 1.5, 1.25.
    var text = String(format: "%.2f", number)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
  }
}

/// Prints `rows` as a Markdown table, ready for docs/benchmarks.md; with a goal column when any row
/// has a goal.
package func printTable(_ title: String, _ rows: [Row]) {
  print("\n### \(title)\n")
  let goals = rows.contains { $0.goal != nil }
  print(goals ? "| measurement | value | ratio | goal |" : "| measurement | value | ratio |")
  print(goals ? "|---|---:|---:|---|" : "|---|---:|---:|")
  for row in rows {
    let line = "| \(row.name) | \(String(format: "%.1f", row.value)) \(row.unit) | \(row.ratio) |"
    print(goals ? line + " \(row.verdict) |" : line)
  }
}

/// The best of three runs of `body`, per call of the `calls` it makes.
package func nanosecondsPerCall(_ calls: Int, _ body: () async throws -> Void) async throws -> Double {
  let clock = ContinuousClock()
  var best = Duration.seconds(1000)
  for _ in 0..<3 { best = min(best, try await clock.measure { try await body() }) }
  return (Double(best.components.seconds) * 1e9 + Double(best.components.attoseconds) / 1e9) / Double(calls)
}
