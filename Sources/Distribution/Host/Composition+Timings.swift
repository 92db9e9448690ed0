extension Composition {
  /// How long crossing `boundary` has taken so far, and its restarts, stalls and lost
  /// effects; nil when it is not placed in workers or the composition records no timings.
  ///
  /// ```swift
  /// let p99 = composition.timings(of: "counter1")?.remoteActions.percentile(0.99)  // nanoseconds
  /// ```
  public func timings(of boundary: String) -> BoundaryTimings? {
    recorder?.timings(of: boundary)
  }

  /// The timings of every placed boundary as a table, one row per boundary in placement
  /// order, for a person at a terminal; nil when nothing is placed or no timings are recorded.
  public var timingsTable: String? {
    let rows = processes.compactMap { process in timings(of: process.boundary).map { (process.boundary, $0) } }
    return rows.isEmpty ? nil : TimingsTable(rows: rows).text
  }
}
