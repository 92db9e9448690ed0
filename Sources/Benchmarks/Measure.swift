/// Measures how long one call of `body` takes: the best of several rounds, each running
/// `body` `iterations` times, so that a noisy neighbour only slows rounds we discard.
func nanosecondsPerCall(iterations: Int, rounds: Int = 7, _ body: () -> Void) -> Double {
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
func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}

/// One row of a results table.
struct Row {
  let name: String
  let value: Double
  let unit: String
  let baseline: Double?

  var ratio: String { baseline.map { String(format: "%.2f×", value / $0) } ?? "1.00× (baseline)" }
}

/// Prints `rows` as a Markdown table, ready for the README.
func printTable(_ title: String, _ rows: [Row]) {
  print("\n### \(title)\n")
  print("| measurement | value | ratio |")
  print("|---|---:|---:|")
  for row in rows {
    print("| \(row.name) | \(String(format: "%.1f", row.value)) \(row.unit) | \(row.ratio) |")
  }
}

/// The best of three runs of `body`, per call of the `calls` it makes.
func nanosecondsPerCall(_ calls: Int, _ body: () async throws -> Void) async throws -> Double {
  let clock = ContinuousClock()
  var best = Duration.seconds(1000)
  for _ in 0..<3 { best = min(best, try await clock.measure { try await body() }) }
  return (Double(best.components.seconds) * 1e9 + Double(best.components.attoseconds) / 1e9) / Double(calls)
}
