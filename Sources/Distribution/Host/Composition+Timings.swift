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
}
