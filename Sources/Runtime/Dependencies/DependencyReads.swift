import Synchronization

/// Counts the dependencies read while a feature's body is built, so that a body built from a
/// dependency is never kept beyond the action that built it (see `_BuiltBody`).
package final class DependencyReads: Sendable {
  private let count = Atomic(0)

  /// One more read, from the dependency values that carry this log.
  func note() { count.add(1, ordering: .relaxed) }

  /// `build`'s result when it read no dependency; nil when it read one. Reads from tasks that
  /// `build` starts count too, until it returns: they could only make it more cautious.
  static func none<Result>(in build: () -> Result) -> Result? {
    let reads = DependencyReads()
    var values = DependencyValues.current
    values.reads = reads
    let result = DependencyValues.withValues(values, operation: build)
    return reads.count.load(ordering: .relaxed) == 0 ? result : nil
  }
}
